package io.onlyonce.example.seckill.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongFunction;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;

/**
 * The claims every access token must carry, on top of its signature, issuer and times: {@code exp}
 * (a token without one would be valid for ever), {@code sub} (the user name) and {@code uid}, a
 * positive integer naming an existing user whose name is {@code sub}. Any other token is answered
 * 401 as if it were unsigned. Users are looked up once and then remembered while they are active
 * (they are never removed or renamed): up to {@value #REMEMBERED} of them (about 200 bytes each,
 * some 100 MB at the bound), each until {@link #IDLE} passes without a request of theirs. A flash
 * sale brings hundreds of thousands of users who each fetch a one-time token and buy within a
 * minute: a cache at its bound admits a new entry only if it is asked for more often than the one
 * it would evict (Caffeine's TinyLFU), so at 100,000 entries the buyers after the first 100,000
 * were looked up again on purchase.
 */
final class AccessTokenClaims implements OAuth2TokenValidator<Jwt> {

    private static final OAuth2TokenValidatorResult INVALID = OAuth2TokenValidatorResult.failure(
            new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN, "the access token's claims are not valid", null));

    static final int REMEMBERED = 500_000;
    static final Duration IDLE = Duration.ofMinutes(10);

    private final LongFunction<Optional<String>> users;
    private final Cache<Long, String> names;

    AccessTokenClaims(UserRepository users) {
        this(users::usernameOf, Ticker.systemTicker());
    }

    AccessTokenClaims(LongFunction<Optional<String>> usernameOf, Ticker ticker) {
        this.users = usernameOf;
        this.names = Caffeine.newBuilder().maximumSize(REMEMBERED).expireAfterAccess(IDLE).ticker(ticker).build();
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
        Optional<String> stored = users.apply(id);
        stored.ifPresent(name -> names.put(id, name));
        return stored;
    }
}
