package io.onlyonce.spring.metrics;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The gauge {@code onlyonce.store.circuit.state} tagged {@code breaker}: the state of each circuit
 * breaker of the registry, those there now and those added later, as 0 (closed), 1 (open, also
 * forced open) or 2 (half-open); a disabled or metrics-only breaker lets every call through and
 * reads 0. Read from the breaker in memory at scrape time.
 */
public final class CircuitBreakerMeters {

    /** The gauge's name. */
    public static final String STATE = "onlyonce.store.circuit.state";

    private CircuitBreakerMeters() {
    }

    /** Registers a gauge for every breaker of {@code breakers}, now and when one is added. */
    public static void bind(CircuitBreakerRegistry breakers, MeterRegistry registry) {
        breakers.getAllCircuitBreakers().forEach(breaker -> register(breaker, registry));
        breakers.getEventPublisher().onEntryAdded(added -> register(added.getAddedEntry(), registry));
    }

    /** The number a state reads as. */
    public static int value(CircuitBreaker.State state) {
        return switch (state) {
            case OPEN, FORCED_OPEN -> 1;
            case HALF_OPEN -> 2;
            case CLOSED, DISABLED, METRICS_ONLY -> 0;
        };
    }

    private static void register(CircuitBreaker breaker, MeterRegistry registry) {
        Gauge.builder(STATE, breaker, b -> value(b.getState()))
                .description("Circuit breaker of an OnlyOnce store: 0 closed, 1 open, 2 half-open")
                .tag("breaker", breaker.getName())
                .strongReference(true)
                .register(registry);
    }
}
