package io.onlyonce.spring.web;

import io.onlyonce.spring.PrincipalResolver;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link PrincipalResolver}: the servlet request's user principal. Under Spring
 * Security this is the authenticated name (anonymous authentication counts as none), because its
 * filter chain exposes the security context through the servlet API.
 */
public final class ServletPrincipalResolver implements PrincipalResolver {

    @Override
    public @Nullable String resolve(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return principal == null || principal.getName() == null || principal.getName().isBlank() ? null : principal.getName();
    }
}
