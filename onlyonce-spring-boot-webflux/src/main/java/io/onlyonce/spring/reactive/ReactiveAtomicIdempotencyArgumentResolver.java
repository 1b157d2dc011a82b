package io.onlyonce.spring.reactive;

import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.token.TokenService;
import org.springframework.core.MethodParameter;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.result.method.HandlerMethodArgumentResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Gives a {@link ReactiveAtomicIdempotency}, bound to what {@link ReactiveIdempotency} resolved for
 * the request, to each handler method that declares one; registered by the reactive auto-configuration
 * with {@code onlyonce.store=redis}.
 */
final class ReactiveAtomicIdempotencyArgumentResolver implements HandlerMethodArgumentResolver {

    private final CircuitBreakerAtomicExecutor executor;
    private final TokenService tokens;
    private final OutcomeRecorder recorder;
    private final ObservedDurations durations;

    ReactiveAtomicIdempotencyArgumentResolver(CircuitBreakerAtomicExecutor executor, TokenService tokens,
            OutcomeRecorder recorder, ObservedDurations durations) {
        this.executor = executor;
        this.tokens = tokens;
        this.recorder = recorder;
        this.durations = durations;
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == ReactiveAtomicIdempotency.class;
    }

    @Override
    public Mono<Object> resolveArgument(MethodParameter parameter, BindingContext bindingContext,
            ServerWebExchange exchange) {
        return Mono.just(new ReactiveAtomicIdempotency(executor, tokens, recorder, durations,
                SelfDecidedRequest.of(exchange)));
    }
}
