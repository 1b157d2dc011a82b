package io.onlyonce.example.seckill.auth;

import io.onlyonce.example.seckill.web.AppProblem;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.jwt.JwtValidationException;

/** Which problem a refused request is told: no token at all, an expired one, or one that is not valid. */
final class AccessTokenFailures {

    private AccessTokenFailures() {
    }

    static AppProblem problem(AuthenticationException failure) {
        if (!(failure instanceof OAuth2AuthenticationException)) {
            return AppProblem.UNAUTHORIZED; // no bearer token was sent
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof JwtValidationException invalid && expired(invalid)) {
                return AppProblem.ACCESS_TOKEN_EXPIRED;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return AppProblem.ACCESS_TOKEN_INVALID;
    }

    /** Whether the timestamp validator refused it for its {@code exp} (its only "expired" error). */
    private static boolean expired(JwtValidationException invalid) {
        for (OAuth2Error error : invalid.getErrors()) {
            String description = error.getDescription();
            if (description != null && description.startsWith("Jwt expired at")) {
                return true;
            }
        }
        return false;
    }
}
