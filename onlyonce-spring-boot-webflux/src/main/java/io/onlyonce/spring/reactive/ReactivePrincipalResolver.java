package io.onlyonce.spring.reactive;

import java.security.Principal;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Names the caller of a reactive request, so keys are scoped per principal and one user never
 * receives another user's stored response: the reactive twin of {@link io.onlyonce.spring.PrincipalResolver}.
 * The default is Spring Security's authenticated name from the reactive security context
 * (anonymous authentication counts as none), else the exchange's principal. Declare a bean to use
 * anything else.
 */
@FunctionalInterface
public interface ReactivePrincipalResolver {

    /** The caller's stable name; empty when the request is anonymous. */
    Mono<String> resolve(ServerWebExchange exchange);

    /** The default resolver described above. */
    static ReactivePrincipalResolver fromSecurityContext() {
        boolean security = ClassUtils.isPresent("org.springframework.security.core.context.ReactiveSecurityContextHolder",
                ReactivePrincipalResolver.class.getClassLoader());
        return exchange -> {
            Mono<String> fromExchange = exchange.getPrincipal().filter(p -> !SecurityName.anonymous(security, p))
                    .map(Principal::getName);
            Mono<String> name = security ? SecurityName.current().switchIfEmpty(fromExchange) : fromExchange;
            return name.filter(n -> !n.isBlank());
        };
    }

    /** The part that needs Spring Security, loaded only when it is present. */
    final class SecurityName {
        private SecurityName() {
        }

        static Mono<String> current() {
            return org.springframework.security.core.context.ReactiveSecurityContextHolder.getContext()
                    .mapNotNull(org.springframework.security.core.context.SecurityContext::getAuthentication)
                    .filter(a -> !anonymous(true, a))
                    .mapNotNull(org.springframework.security.core.Authentication::getName);
        }

        static boolean anonymous(boolean security, Principal principal) {
            if (!security) {
                return false;
            }
            return principal instanceof org.springframework.security.authentication.AnonymousAuthenticationToken
                    || (principal instanceof org.springframework.security.core.Authentication authentication
                            && !authentication.isAuthenticated());
        }
    }
}
