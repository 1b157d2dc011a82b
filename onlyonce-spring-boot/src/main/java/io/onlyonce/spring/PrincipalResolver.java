package io.onlyonce.spring;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Names the caller, so keys and tokens are scoped per principal and one user never receives
 * another user's stored response. The default uses Spring Security's authenticated name when
 * Spring Security is present; declare a bean to use anything else (an API key, a tenant and user).
 */
@FunctionalInterface
public interface PrincipalResolver {

    /** The caller's stable name, or {@code null} when the request is anonymous. */
    @Nullable String resolve(HttpServletRequest request);
}
