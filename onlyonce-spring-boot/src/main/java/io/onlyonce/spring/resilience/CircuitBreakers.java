package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.store.StoreBudget;
import java.util.function.Supplier;

/**
 * Runs a store call through a circuit breaker; an open circuit is a {@link StoreUnavailableException}.
 * New work ({@link #call}) shares the request's {@link StoreBudget}; a call that records work already
 * done ({@link #attempt}) runs outside it, on the store's own timeout.
 */
final class CircuitBreakers {

    private CircuitBreakers() {
    }

    static <T> T call(CircuitBreaker breaker, String operation, Supplier<T> call) {
        try {
            // a call refused for a spent budget counts as a failure: the store's earlier calls spent it
            return breaker.executeSupplier(() -> StoreBudget.call(operation, call));
        } catch (CallNotPermittedException open) {
            throw new StoreUnavailableException(operation + " (circuit open)", open);
        }
    }

    /**
     * Runs a call that records work already done (a completion, a release) whatever the circuit's
     * state: refusing it would leave the record in progress until its lease ends, and a retry after
     * that would run the work again. Its outcome and duration still count toward the breaker.
     */
    static <T> T attempt(CircuitBreaker breaker, Supplier<T> call) {
        long start = breaker.getCurrentTimestamp();
        try {
            T result = StoreBudget.outside(call);
            breaker.onResult(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit(), result);
            return result;
        } catch (RuntimeException failure) {
            breaker.onError(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit(), failure);
            throw failure;
        }
    }
}
