package io.onlyonce.spring.reactive;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The last web filter: marks where the handler of an {@code @Idempotent} controller method begins.
 * A request whose client goes away before this point (while a later web filter or a slow step
 * before the handler still holds it) had nothing run: {@link OnlyOnceWebFilter} releases its key, so
 * a retry runs at once, and the handler is never called. Past this point the handler's effect may
 * be under way, and its key is left to its lease. Requests that {@code @Idempotent} does not protect
 * pass straight through. Registered by the starter, ordered last
 * ({@link Ordered#LOWEST_PRECEDENCE}, after the application's filters of the same order).
 */
public final class OnlyOnceHandlerStartFilter implements WebFilter, Ordered {

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return HandlerStart.run(exchange, () -> chain.filter(exchange));
    }
}
