package io.onlyonce.example.seckill.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;

class AccessTokenClaimsTest {

    private final AtomicInteger lookups = new AtomicInteger();
    private final AtomicLong nanos = new AtomicLong();
    /** users 1..1,000,000 exist, named u1, u2, ... */
    private final AccessTokenClaims claims = new AccessTokenClaims(id -> {
        lookups.incrementAndGet();
        return id <= 1_000_000 ? Optional.of("u" + id) : Optional.empty();
    }, nanos::get);

    private static Jwt token(Object uid, String subject) {
        return Jwt.withTokenValue("t").header("alg", "HS256").subject(subject).claim(CurrentUser.USER_ID_CLAIM, uid)
                .issuedAt(Instant.parse("2026-12-01T10:00:00Z")).expiresAt(Instant.parse("2026-12-01T12:00:00Z")).build();
    }

    @Test
    void aUserIsLookedUpOnceThoughHundredsOfThousandsCameAfterThem() {
        // a flash sale: every buyer fetches a one-time token (validated), then all of them buy
        int buyers = 300_000;
        for (long id = 1; id <= buyers; id++) {
            assertThat(claims.validate(token(id, "u" + id)).hasErrors()).isFalse();
        }
        for (long id = 1; id <= buyers; id++) {
            assertThat(claims.validate(token(id, "u" + id)).hasErrors()).isFalse();
        }
        assertThat(lookups).hasValue(buyers);
    }

    @Test
    void aUserIdleLongerThanTheLimitIsLookedUpAgain() {
        claims.validate(token(7L, "u7"));
        nanos.addAndGet(AccessTokenClaims.IDLE.minusSeconds(1).toNanos());
        claims.validate(token(7L, "u7"));
        assertThat(lookups).hasValue(1);
        nanos.addAndGet(AccessTokenClaims.IDLE.minusSeconds(1).toNanos());
        claims.validate(token(7L, "u7")); // each request restarts the idle time
        assertThat(lookups).hasValue(1);
        nanos.addAndGet(AccessTokenClaims.IDLE.plusSeconds(1).toNanos());
        claims.validate(token(7L, "u7"));
        assertThat(lookups).hasValue(2);
    }

    @Test
    void tokensNamingNoUserOrAnotherUsersNameAreRefused() {
        assertThat(claims.validate(token(2_000_000L, "u2000000")).hasErrors()).isTrue();
        assertThat(claims.validate(token(5L, "u6")).hasErrors()).isTrue();
        assertThat(claims.validate(token(0L, "u0")).hasErrors()).isTrue();
        assertThat(claims.validate(token("5", "u5")).hasErrors()).isTrue();
        assertThat(claims.validate(token(5, "u5")).hasErrors()).isFalse();
    }
}
