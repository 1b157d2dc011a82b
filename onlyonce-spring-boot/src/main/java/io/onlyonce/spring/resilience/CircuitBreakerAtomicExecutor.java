package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisAtomicExecutor;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.StoreBudget;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

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

    /**
     * {@link RedisAtomicExecutor#runAsync}, guarded: while the circuit is open the stage fails at
     * once with {@link StoreUnavailableException}; otherwise the call's outcome and duration count
     * toward the breaker when its stage completes. Its budget is the executor's command timeout.
     */
    public CompletionStage<AtomicOutcome> runAsync(AtomicCall call) {
        if (breaker == null) {
            return AsyncIdempotencyStore.stage(() -> delegate.runAsync(call));
        }
        if (!breaker.tryAcquirePermission()) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("atomic " + call.effect().name()
                    + " (circuit open)", CallNotPermittedException.createCallNotPermittedException(breaker)));
        }
        long start = breaker.getCurrentTimestamp();
        return AsyncIdempotencyStore.stage(() -> delegate.runAsync(call)).whenComplete((outcome, failure) -> {
            long duration = breaker.getCurrentTimestamp() - start;
            if (failure == null) {
                breaker.onResult(duration, breaker.getTimestampUnit(), outcome);
            } else {
                breaker.onError(duration, breaker.getTimestampUnit(),
                        failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
            }
        });
    }

    /** The executor behind the breaker (its {@code find}, {@code runAsync}). */
    public RedisAtomicExecutor delegate() {
        return delegate;
    }
}
