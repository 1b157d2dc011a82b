package io.onlyonce.spring.atomic;

import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.token.TokenService;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/** Gives an {@link AtomicIdempotency} to each handler method that declares one; registered by the starter. */
public final class AtomicIdempotencyArgumentResolver implements HandlerMethodArgumentResolver {

    private final ObjectProvider<CircuitBreakerAtomicExecutor> executor;
    private final TokenService tokens;
    private final OutcomeRecorder recorder;
    private final ObservedDurations durations;

    /** @param durations the endpoints' usual durations, for the {@code Retry-After} of a record in progress */
    public AtomicIdempotencyArgumentResolver(ObjectProvider<CircuitBreakerAtomicExecutor> executor, TokenService tokens,
            OutcomeRecorder recorder, ObservedDurations durations) {
        this.executor = executor;
        this.tokens = tokens;
        this.recorder = recorder;
        this.durations = durations;
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == AtomicIdempotency.class;
    }

    @Override
    public Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer mavContainer,
            NativeWebRequest webRequest, @Nullable WebDataBinderFactory binderFactory) {
        CircuitBreakerAtomicExecutor atomic = executor.getIfAvailable();
        if (atomic == null) {
            throw new IllegalStateException("AtomicIdempotency runs its effect on Redis: it needs onlyonce.store=redis ("
                    + parameter.getMethod() + ")");
        }
        return new AtomicIdempotency(atomic, tokens, recorder, durations);
    }
}
