package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.IllegalStateTransitionException;
import io.onlyonce.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a store, once per interval, whether it answers again while its circuit breakers are open,
 * so that they close as soon as it does rather than after their open-state wait: on an answer an
 * open breaker turns half-open, and the probe then makes the calls a half-open breaker permits
 * itself, which close it when they succeed. Requests need not arrive (nor wait) for that. While
 * every breaker is closed, nothing is sent. One daemon thread; {@link #close()} stops it.
 *
 * <p>The breakers of one store share its fate (the Redis stores share one connection, the JDBC
 * stores one {@code DataSource}): when one opens, the others still closed are opened too, so that
 * a request whose first call would go to another of them (the token endpoint, after orders opened
 * the idempotency breaker) is refused at once too, instead of waiting for a server already known
 * to be down; the probe closes them when the store answers (or, like any open breaker, a request's
 * trial call after the open-state wait).
 */
public final class StoreProbes implements AutoCloseable {

    /** One question to the store: whether it answers, within a timeout of the probe's own. Never throws. */
    @FunctionalInterface
    public interface Probe {
        boolean answers();
    }

    private static final Logger log = LoggerFactory.getLogger(StoreProbes.class);
    /** Bounds the probe calls of one half-open breaker per round, whatever its settings. */
    private static final int MOST_CALLS_PER_ROUND = 10;
    private static final ThreadLocal<Boolean> OPENING_SIBLINGS = ThreadLocal.withInitial(() -> false);

    private final Probe probe;
    private final List<CircuitBreaker> breakers;
    private final Duration interval;
    private final ScheduledExecutorService scheduler;

    /**
     * @param probe asks the store
     * @param breakers the breakers in front of that store
     * @param interval how often the store is asked while one of them is open
     */
    public StoreProbes(Probe probe, List<CircuitBreaker> breakers, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the probe interval must be positive");
        }
        this.probe = probe;
        this.breakers = List.copyOf(breakers);
        this.interval = interval;
        for (CircuitBreaker breaker : this.breakers) {
            breaker.getEventPublisher().onStateTransition(event -> {
                if (event.getStateTransition() == CircuitBreaker.StateTransition.CLOSED_TO_OPEN) {
                    forceOpenAllBut(breaker);
                }
            });
        }
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "onlyonce-store-probe");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts probing, one round per interval. */
    public void start() {
        long nanos = interval.toNanos();
        scheduler.scheduleWithFixedDelay(this::round, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** One round: nothing while every breaker is closed; else one question, and on an answer the breakers' own calls. */
    void round() {
        try {
            List<CircuitBreaker> refusing = breakers.stream().filter(StoreProbes::refusing).toList();
            if (refusing.isEmpty() || !probe.answers()) {
                return;
            }
            for (CircuitBreaker breaker : refusing) {
                halfOpen(breaker);
                closeWithProbes(breaker);
            }
        } catch (RuntimeException e) {
            log.debug("OnlyOnce store probe failed", e);
        }
    }

    /**
     * Opens the breakers still closed. OPEN, not FORCED_OPEN: resilience4j gives a forced-open
     * breaker an empty call window, and a breaker whose own failing call then moves it from forced
     * open to open keeps that window, so that the next call recorded there fails with an
     * ArithmeticException (a 500 instead of a 503).
     */
    private void forceOpenAllBut(CircuitBreaker opened) {
        boolean outer = !OPENING_SIBLINGS.get();
        OPENING_SIBLINGS.set(true);
        try {
            for (CircuitBreaker other : breakers) {
                if (other != opened && other.getState() == CircuitBreaker.State.CLOSED) {
                    try {
                        other.transitionToOpenState();
                    } catch (IllegalStateTransitionException changedMeanwhile) {
                        // it moved by itself
                    }
                }
            }
        } finally {
            if (outer) {
                OPENING_SIBLINGS.remove();
            }
        }
    }

    /** Whether the calling thread is opening the breakers of a store because a sibling breaker opened (for the log). */
    static boolean openingSiblings() {
        return OPENING_SIBLINGS.get();
    }

    private static boolean refusing(CircuitBreaker breaker) {
        CircuitBreaker.State state = breaker.getState();
        return state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.HALF_OPEN
                || state == CircuitBreaker.State.FORCED_OPEN;
    }

    /** An open breaker turns half-open for its trial calls; one forced open with a sibling closes (the sibling's trials speak for both). */
    private static void halfOpen(CircuitBreaker breaker) {
        try {
            if (breaker.getState() == CircuitBreaker.State.OPEN) {
                breaker.transitionToHalfOpenState();
            } else if (breaker.getState() == CircuitBreaker.State.FORCED_OPEN) {
                breaker.transitionToClosedState();
            }
        } catch (IllegalStateTransitionException changedMeanwhile) {
            // a request's call moved it first
        }
    }

    /** The calls a half-open breaker permits, made by the probe: the breaker closes when they succeed. */
    private void closeWithProbes(CircuitBreaker breaker) {
        for (int i = 0; i < MOST_CALLS_PER_ROUND && breaker.getState() == CircuitBreaker.State.HALF_OPEN
                && breaker.tryAcquirePermission(); i++) {
            long start = breaker.getCurrentTimestamp();
            boolean answered = probe.answers();
            long duration = breaker.getCurrentTimestamp() - start;
            if (answered) {
                breaker.onSuccess(duration, breaker.getTimestampUnit());
            } else {
                breaker.onError(duration, breaker.getTimestampUnit(),
                        new StoreUnavailableException("probe", new IllegalStateException("no answer")));
                return;
            }
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
