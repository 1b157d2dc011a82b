package io.onlyonce.example.seckill.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidationException;

/**
 * The access token decoder, remembering the tokens it has verified: a client sends the same token
 * with every request of its session, and parsing it and recomputing its HMAC each time was about a
 * sixth of {@code GET /api/ping}'s CPU (docs/benchmarks.md). A token is remembered by its whole
 * text, signature included, so only the very token that passed is taken from memory; its times,
 * issuer and claims are validated again on every use (an expired token is refused as before).
 * Tokens that fail are not remembered. At most {@code maximumSize} tokens, each for at most
 * {@code remember}. Thread-safe.
 */
final class RememberingJwtDecoder implements JwtDecoder {

    private final JwtDecoder verifier;
    private final OAuth2TokenValidator<Jwt> validator;
    private final Cache<String, Jwt> verified;

    /**
     * @param verifier decodes, verifies the signature and validates (with {@code validator})
     * @param validator what every use of a remembered token must pass again
     */
    RememberingJwtDecoder(JwtDecoder verifier, OAuth2TokenValidator<Jwt> validator, long maximumSize, Duration remember) {
        this.verifier = verifier;
        this.validator = validator;
        this.verified = Caffeine.newBuilder().maximumSize(maximumSize).expireAfterWrite(remember).build();
    }

    @Override
    public Jwt decode(String token) throws JwtException {
        Jwt known = verified.getIfPresent(token);
        if (known == null) {
            Jwt jwt = verifier.decode(token);
            verified.put(token, jwt);
            return jwt;
        }
        OAuth2TokenValidatorResult result = validator.validate(known);
        if (result.hasErrors()) {
            verified.invalidate(token);
            throw new JwtValidationException("the access token is not valid", result.getErrors());
        }
        return known;
    }
}
