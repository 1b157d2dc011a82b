package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisAtomicExecutor;
import io.onlyonce.store.StoreBudget;

/**
 * {@link RedisAtomicExecutor} calls through the circuit breaker of the idempotency store (the same
 * Redis) and within the request's store budget, as the stores' calls are: while the circuit is open
 * a call is refused at once with {@link StoreUnavailableException}, and a call that fails to reach
 * Redis or outlasts its budget counts toward opening it. The starter declares one with
 * {@code onlyonce.store=redis}; without a circuit breaker ({@code onlyonce.circuit-breaker.enabled=false})
 * it only applies the budget.
 */
public final class CircuitBreakerAtomicExecutor {

    private final RedisAtomicExecutor delegate;
    private final CircuitBreaker breaker;

    /** @param breaker the breaker, or null for none */
    public CircuitBreakerAtomicExecutor(RedisAtomicExecutor delegate, @org.jspecify.annotations.Nullable CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    /**
     * {@link RedisAtomicExecutor#run}, guarded.
     *
     * @throws StoreUnavailableException also while the circuit is open
     */
    public AtomicOutcome run(AtomicCall call) {
        if (breaker == null) {
            return StoreBudget.call("atomic " + call.effect().name(), () -> delegate.run(call));
        }
        return CircuitBreakers.call(breaker, "atomic " + call.effect().name(), () -> delegate.run(call));
    }

    /** The executor behind the breaker (its {@code find}, {@code runAsync}). */
    public RedisAtomicExecutor delegate() {
        return delegate;
    }
}
