package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.StoreUnavailableException;
import java.util.function.Supplier;

/** Runs a store call through a circuit breaker; an open circuit is a {@link StoreUnavailableException}. */
final class CircuitBreakers {

    private CircuitBreakers() {
    }

    static <T> T call(CircuitBreaker breaker, String operation, Supplier<T> call) {
        try {
            return breaker.executeSupplier(call);
        } catch (CallNotPermittedException open) {
            throw new StoreUnavailableException(operation + " (circuit open)", open);
        }
    }
}
