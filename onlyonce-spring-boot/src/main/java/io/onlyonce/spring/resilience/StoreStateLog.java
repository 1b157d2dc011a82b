package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerOnStateTransitionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one line per change of state of a store's circuit breaker, so an outage reads as what it
 * is: a WARN when the breaker opens, an INFO when it closes again, DEBUG for the probes in between.
 * Each failing store call, and each call the open breaker refuses, logs one line at DEBUG without a
 * stack trace; failing requests log nothing above DEBUG.
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
        String store = store(breaker.getName());
        breaker.getEventPublisher().onStateTransition(StoreStateLog::log)
                .onError(failed -> log.debug("OnlyOnce {} store call failed after {} ms, answered as unavailable: {}", store,
                        failed.getElapsedDuration().toMillis(), describe(failed.getThrowable())))
                .onCallNotPermitted(refused -> log.debug("OnlyOnce {} store call refused: circuit breaker OPEN", store));
    }

    /** The failure and its root cause, in one line. */
    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == failure ? failure.toString() : failure + " (caused by " + root + ")";
    }

    private static String store(String breaker) {
        return breaker.startsWith(PREFIX) ? breaker.substring(PREFIX.length()) : breaker;
    }

    private static void log(CircuitBreakerOnStateTransitionEvent event) {
        String store = store(event.getCircuitBreakerName());
        CircuitBreaker.StateTransition transition = event.getStateTransition();
        switch (transition) {
            case CLOSED_TO_OPEN -> {
                if (StoreProbes.openingSiblings()) {
                    log.info("OnlyOnce {} store shares its server with a store found unavailable:"
                            + " circuit breaker OPEN until a probe succeeds", store);
                } else {
                    log.warn("OnlyOnce {} store unavailable, circuit breaker OPEN: its calls fail at once"
                            + " until a probe succeeds (failures and slow calls over the thresholds of"
                            + " onlyonce.circuit-breaker.*)", store);
                }
            }
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
