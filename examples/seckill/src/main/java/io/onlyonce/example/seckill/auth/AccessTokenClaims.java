package io.onlyonce.example.seckill.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.Optional;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;

/**
 * The claims every access token must carry, on top of its signature, issuer and times: {@code exp}
 * (a token without one would be valid for ever), {@code sub} (the user name) and {@code uid}, a
 * positive integer naming an existing user whose name is {@code sub}. Any other token is answered
 * 401 as if it were unsigned. Users are looked up once and then remembered (they are never removed
 * or renamed).
 */
final class AccessTokenClaims implements OAuth2TokenValidator<Jwt> {

    private static final OAuth2TokenValidatorResult INVALID = OAuth2TokenValidatorResult.failure(
            new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN, "the access token's claims are not valid", null));

    private final UserRepository users;
    private final Cache<Long, String> names = Caffeine.newBuilder().maximumSize(100_000)
            .expireAfterWrite(Duration.ofMinutes(10)).build();

    AccessTokenClaims(UserRepository users) {
        this.users = users;
    }

    @Override
    public OAuth2TokenValidatorResult validate(Jwt jwt) {
        if (jwt.getExpiresAt() == null) {
            return INVALID;
        }
        String subject = jwt.getSubject();
        if (subject == null || subject.isBlank()) {
            return INVALID;
        }
        Object uid = jwt.getClaims().get(CurrentUser.USER_ID_CLAIM);
        if (!(uid instanceof Long || uid instanceof Integer)) {
            return INVALID;
        }
        long id = ((Number) uid).longValue();
        if (id <= 0) {
            return INVALID;
        }
        return subject.equals(nameOf(id).orElse(null)) ? OAuth2TokenValidatorResult.success() : INVALID;
    }

    private Optional<String> nameOf(long id) {
        String known = names.getIfPresent(id);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<String> stored = users.usernameOf(id);
        stored.ifPresent(name -> names.put(id, name));
        return stored;
    }
}
