package io.onlyonce.example.seckill.auth;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * The authenticated caller, from the access token: {@code sub} is the user name, {@code uid} the
 * numeric user id.
 *
 * @param id the stable numeric user id
 * @param username the user name
 */
public record CurrentUser(long id, String username) {

    /** Claim carrying the numeric user id. */
    public static final String USER_ID_CLAIM = "uid";

    public static CurrentUser of(Jwt jwt) {
        Object uid = jwt.getClaims().get(USER_ID_CLAIM);
        if (!(uid instanceof Number number)) {
            throw new org.springframework.security.authentication.BadCredentialsException("access token without user id");
        }
        return new CurrentUser(number.longValue(), jwt.getSubject());
    }

    /** The caller of the current request, or null when it is anonymous. */
    public static CurrentUser current() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication instanceof JwtAuthenticationToken token) {
            return of(token.getToken());
        }
        return null;
    }
}
