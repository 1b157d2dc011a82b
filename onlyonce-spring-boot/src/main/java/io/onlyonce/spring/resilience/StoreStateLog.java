package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnStateTransitionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one line per change of state of a store's circuit breaker, so an outage reads as what it
 * is: a WARN when the breaker opens, an INFO when it closes again, DEBUG for the probes in between.
 * Failing requests themselves log nothing above DEBUG.
 */
public final class StoreStateLog {

    private static final Logger log = LoggerFactory.getLogger(StoreStateLog.class);
    private static final String PREFIX = "onlyonce-";

    private StoreStateLog() {
    }

    /** Attaches the log to every breaker the registry creates from now on. */
    public static void attachTo(CircuitBreakerRegistry registry) {
        registry.getEventPublisher().onEntryAdded(added -> attach(added.getAddedEntry()));
    }

    static void attach(CircuitBreaker breaker) {
        breaker.getEventPublisher().onStateTransition(StoreStateLog::log);
    }

    private static void log(CircuitBreakerOnStateTransitionEvent event) {
        String name = event.getCircuitBreakerName();
        String store = name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name;
        CircuitBreaker.StateTransition transition = event.getStateTransition();
        switch (transition) {
            case CLOSED_TO_OPEN -> log.warn("OnlyOnce {} store unavailable, circuit breaker OPEN: its calls fail at once"
                    + " until a probe succeeds (failures and slow calls over the thresholds of onlyonce.circuit-breaker.*)",
                    store);
            case HALF_OPEN_TO_OPEN -> log.debug("OnlyOnce {} store still unavailable, circuit breaker OPEN again", store);
            case OPEN_TO_HALF_OPEN -> log.debug("OnlyOnce {} store circuit breaker HALF_OPEN: probing", store);
            case HALF_OPEN_TO_CLOSED, FORCED_OPEN_TO_CLOSED -> log.info("OnlyOnce {} store reachable again, circuit breaker CLOSED",
                    store);
            case CLOSED_TO_FORCED_OPEN -> log.info("OnlyOnce {} store shares its server with a store found unavailable:"
                    + " circuit breaker FORCED_OPEN until a probe succeeds", store);
            default -> log.info("OnlyOnce {} store circuit breaker {}", store, transition.getToState());
        }
    }
}
