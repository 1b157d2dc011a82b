package io.onlyonce.example.seckill.auth;

import io.onlyonce.example.seckill.SeckillProperties;
import java.time.Clock;
import java.time.Instant;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.stereotype.Component;

/**
 * Issues the demo access tokens: HS256 JWTs with {@code sub} = user name and {@code uid} = user id,
 * and {@code scope} = {@value #OPERATOR_SCOPE} for the operators ({@code seckill.auth.operators}).
 */
@Component
public class AccessTokens {

    /**
     * The scope of an operator's token ({@code seckill.auth.operators}): Spring Security reads it as
     * the authority {@code SCOPE_ops}, the role {@code management.endpoint.health.roles} names.
     */
    public static final String OPERATOR_SCOPE = "ops";

    private final JwtEncoder encoder;
    private final SeckillProperties.Auth settings;
    private final Clock clock;

    public AccessTokens(JwtEncoder encoder, SeckillProperties properties, Clock clock) {
        this.encoder = encoder;
        this.settings = properties.auth();
        this.clock = clock;
    }

    /**
     * An access token.
     *
     * @param value the compact JWT
     * @param expiresAt when it stops being accepted
     */
    public record AccessToken(String value, Instant expiresAt) {
    }

    public AccessToken issue(long userId, String username) {
        Instant now = clock.instant();
        Instant expiresAt = now.plus(settings.tokenTtl());
        JwtClaimsSet.Builder builder = JwtClaimsSet.builder()
                .issuer(settings.issuer())
                .subject(username)
                .claim(CurrentUser.USER_ID_CLAIM, userId)
                .issuedAt(now)
                .expiresAt(expiresAt);
        if (settings.operators().contains(username)) {
            builder.claim("scope", OPERATOR_SCOPE);
        }
        JwtClaimsSet claims = builder.build();
        JwsHeader header = JwsHeader.with(MacAlgorithm.HS256).build();
        return new AccessToken(encoder.encode(JwtEncoderParameters.from(header, claims)).getTokenValue(), expiresAt);
    }
}
