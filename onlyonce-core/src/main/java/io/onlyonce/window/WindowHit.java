package io.onlyonce.window;

import java.time.Duration;

/**
 * One counted hit.
 *
 * @param count the hit's number within its window, from 1
 * @param remaining the time left in the window when the hit was counted, on the store's clock; positive
 */
public record WindowHit(long count, Duration remaining) {

    public WindowHit {
        if (count < 1) {
            throw new IllegalArgumentException("count starts at 1");
        }
        if (remaining == null || remaining.isNegative() || remaining.isZero()) {
            throw new IllegalArgumentException("remaining must be positive");
        }
    }

    /** Whether this hit opened the window: the first request, not a duplicate. */
    public boolean first() {
        return count == 1;
    }

    /**
     * The remaining time in whole seconds, rounded up and at least one: the {@code Retry-After} of
     * a refused request.
     */
    public long retryAfterSeconds() {
        long seconds = remaining.getSeconds() + (remaining.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }
}
