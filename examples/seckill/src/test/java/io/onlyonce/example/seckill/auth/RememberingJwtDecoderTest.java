package io.onlyonce.example.seckill.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.example.seckill.support.Jwts;
import io.onlyonce.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwtValidationException;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

class RememberingJwtDecoderTest {

    private static final String SECRET = "remembering-jwt-decoder-test-secret-0123456789";
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    private final MutableClock clock = MutableClock.at(NOW);
    private final AtomicInteger verifications = new AtomicInteger();
    private final RememberingJwtDecoder decoder;

    RememberingJwtDecoderTest() {
        SecretKey key = new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        NimbusJwtDecoder nimbus = NimbusJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
        JwtTimestampValidator timestamps = new JwtTimestampValidator(Duration.ofSeconds(30));
        timestamps.setClock(clock);
        OAuth2TokenValidator<Jwt> validator = new DelegatingOAuth2TokenValidator<>(timestamps,
                new JwtIssuerValidator("onlyonce-seckill"));
        nimbus.setJwtValidator(validator);
        JwtDecoder counting = token -> {
            verifications.incrementAndGet();
            return nimbus.decode(token);
        };
        decoder = new RememberingJwtDecoder(counting, validator, 100, Duration.ofMinutes(5));
    }

    private static String token(String subject, Instant expiresAt, String issuer) {
        return Jwts.sign(SECRET, Map.of("sub", subject, "uid", 7L, "iss", issuer,
                "iat", NOW.getEpochSecond(), "exp", expiresAt.getEpochSecond()));
    }

    @Test
    void aVerifiedTokenIsNotVerifiedAgainOnItsNextUses() {
        String alice = token("alice", NOW.plus(Duration.ofHours(2)), "onlyonce-seckill");
        Jwt first = decoder.decode(alice);
        Jwt second = decoder.decode(alice);
        Jwt third = decoder.decode(alice);
        assertThat(first.getSubject()).isEqualTo("alice");
        assertThat(second.getClaims()).isEqualTo(first.getClaims());
        assertThat(third.getTokenValue()).isEqualTo(alice);
        assertThat(verifications).hasValue(1);
    }

    @Test
    void aRememberedTokenIsRefusedOnceItHasExpiredAndThenForgotten() {
        String alice = token("alice", NOW.plus(Duration.ofMinutes(1)), "onlyonce-seckill");
        decoder.decode(alice);
        clock.advance(Duration.ofSeconds(89));
        assertThat(decoder.decode(alice).getSubject()).isEqualTo("alice");
        clock.advance(Duration.ofSeconds(2));
        assertThatThrownBy(() -> decoder.decode(alice)).isInstanceOf(JwtValidationException.class);
        // forgotten: the next use goes through the full verification (and fails there too)
        assertThatThrownBy(() -> decoder.decode(alice)).isInstanceOf(JwtValidationException.class);
        assertThat(verifications).hasValue(2);
    }

    @Test
    void onlyTheVeryTokenThatPassedIsRemembered() {
        String alice = token("alice", NOW.plus(Duration.ofHours(2)), "onlyonce-seckill");
        decoder.decode(alice);
        String[] parts = alice.split("\\.");
        char last = parts[2].charAt(0);
        String tampered = parts[0] + "." + parts[1] + "." + (last == 'A' ? 'B' : 'A') + parts[2].substring(1);
        String[] mallory = token("mallory", NOW.plus(Duration.ofHours(2)), "onlyonce-seckill").split("\\.");
        String swapped = parts[0] + "." + mallory[1] + "." + parts[2];
        assertThatThrownBy(() -> decoder.decode(tampered)).isInstanceOf(BadJwtException.class);
        assertThatThrownBy(() -> decoder.decode(swapped)).isInstanceOf(BadJwtException.class);
        assertThat(decoder.decode(alice).getSubject()).isEqualTo("alice");
        assertThat(verifications).hasValue(3);
    }

    @Test
    void aRefusedTokenIsNotRemembered() {
        String wrongIssuer = token("alice", NOW.plus(Duration.ofHours(2)), "someone-else");
        assertThatThrownBy(() -> decoder.decode(wrongIssuer)).isInstanceOf(JwtValidationException.class);
        assertThatThrownBy(() -> decoder.decode(wrongIssuer)).isInstanceOf(JwtValidationException.class);
        assertThat(verifications).hasValue(2);
    }
}
