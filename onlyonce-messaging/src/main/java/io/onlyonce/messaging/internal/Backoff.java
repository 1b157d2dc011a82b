package io.onlyonce.messaging.internal;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * Exponential backoff with jitter and a cap, by resilience4j's
 * {@link IntervalFunction#ofExponentialRandomBackoff(Duration, double, double, Duration)}: the
 * wait before the attempt after failed attempt {@code n} is
 * {@code min(cap, initial * multiplier^(n-1))}, spread at random by {@code ± jitter} of itself
 * and never above the cap.
 */
public final class Backoff {

    private final IntervalFunction intervals;

    public Backoff(Duration initial, double multiplier, double jitter, Duration cap) {
        this.intervals = IntervalFunction.ofExponentialRandomBackoff(initial, multiplier, jitter, cap);
    }

    /** The wait after failed attempt {@code attempt} (1 for the first). */
    public Duration after(int attempt) {
        return Duration.ofMillis(Math.max(1, intervals.apply(Math.max(1, attempt))));
    }

    /**
     * Checks the parameters that resilience4j would refuse later.
     *
     * @throws IllegalArgumentException when one is out of range
     */
    public static void check(Duration initial, double multiplier, double jitter, Duration cap) {
        if (initial == null || initial.toMillis() < 1) {
            throw new IllegalArgumentException("initial backoff must be at least 1 ms");
        }
        if (cap == null || cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max backoff must be at least the initial backoff");
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("backoff multiplier must be at least 1");
        }
        if (!(jitter >= 0.0 && jitter < 1.0)) {
            throw new IllegalArgumentException("backoff jitter must be at least 0 and below 1");
        }
    }
}
