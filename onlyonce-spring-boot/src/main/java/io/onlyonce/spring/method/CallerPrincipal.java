package io.onlyonce.spring.method;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Names the caller of an {@code @Idempotent} bean method (a service method called by a handler), so
 * that its key is scoped per principal as a handler's is: within an authenticated request, bob can
 * never receive the result alice's call stored under the same business key. The starter's default
 * asks the current servlet request (through the {@code PrincipalResolver}) and else Spring
 * Security's {@code SecurityContextHolder}; a job or a message listener without either has no
 * principal, and its keys are scoped by method alone.
 */
@FunctionalInterface
public interface CallerPrincipal {

    /** The caller's stable name, or {@code null} when there is none. */
    @Nullable String current();

    /** Spring Security's authenticated, non-anonymous name, when Spring Security is present; else none. */
    static CallerPrincipal fromSecurityContext() {
        if (!ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder",
                CallerPrincipal.class.getClassLoader())) {
            return () -> null;
        }
        return SecurityContextName::current;
    }

    /** The part that needs Spring Security, loaded only when it is present. */
    final class SecurityContextName {
        private SecurityContextName() {
        }

        static @Nullable String current() {
            org.springframework.security.core.Authentication authentication =
                    org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
            if (authentication == null || !authentication.isAuthenticated()
                    || authentication instanceof org.springframework.security.authentication.AnonymousAuthenticationToken) {
                return null;
            }
            String name = authentication.getName();
            return name == null || name.isBlank() ? null : name;
        }
    }
}
