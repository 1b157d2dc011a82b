package io.onlyonce.spring.method;

import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Execution;
import io.onlyonce.engine.Outcome;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * How long the protected work of each endpoint takes, as this instance observed it, and the one
 * rule for the {@code Retry-After} of a {@code 409 in progress} on every path (Spring MVC and
 * WebFlux handlers, functional routes, the one-script atomic calls, service methods):
 * <ul>
 * <li>while the holder may still be running as usual (it has held the key for less than the
 * endpoint's usual duration plus one second): the usual duration less what the holder has already
 * run, so that a method that takes 100 ms is retried after a second, not after the rest of a 30 s
 * lease;</li>
 * <li>once the holder has overrun that (it is stuck, or its client went away after the work
 * started, which leaves the key to its lease), or before this instance saw the endpoint complete
 * once and the holder has run a second: the time the holder's lease has left, when the key is
 * certain to be completed or free, so that clients do not retry every second for nothing.</li>
 * </ul>
 * Either way in whole seconds rounded up, at least one second and never more than the lease has
 * left. The lease's time left is measured on the store's clock ({@code IdempotencyRecord#expiresIn}),
 * so every instance suggests the same wait for an overdue holder.
 *
 * <p>The usual duration is an exponentially weighted mean of the executions that completed (one in
 * five counts for the newest). Thread-safe; one mean per endpoint, which is bounded by the
 * application's methods and routes.
 */
public final class ObservedDurations {

    /** How far past its usual duration a holder may run before it counts as overdue: one retry's wait. */
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final long UNKNOWN = -1;

    private final ConcurrentMap<String, AtomicLong> meanNanos = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    public ObservedDurations() {
        this(System::nanoTime);
    }

    /** @param nanoTime the monotonic time source (tests pass their own) */
    public ObservedDurations(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Records that one execution of {@code endpoint} took {@code elapsed}. */
    public void record(String endpoint, Duration elapsed) {
        long nanos = Math.max(0, elapsed.toNanos());
        meanNanos.computeIfAbsent(endpoint, e -> new AtomicLong(UNKNOWN))
                .getAndUpdate(mean -> mean == UNKNOWN ? nanos : mean + (nanos - mean) / 5);
    }

    /** The usual duration of {@code endpoint}, or null before its first completed execution. */
    public @Nullable Duration usual(String endpoint) {
        AtomicLong mean = meanNanos.get(endpoint);
        long nanos = mean == null ? UNKNOWN : mean.get();
        return nanos == UNKNOWN ? null : Duration.ofNanos(nanos);
    }

    /**
     * The wait to suggest for an {@code in progress} outcome of {@code endpoint}: the rule of the
     * class comment, from the usual duration, what the holder has run and what its lease has left.
     */
    public Duration retryAfter(String endpoint, Outcome.InProgress inProgress) {
        Duration leaseLeft = inProgress.retryAfter();
        Duration usual = usual(endpoint);
        Duration expected = usual == null ? Duration.ZERO : usual;
        if (inProgress.running().compareTo(expected.plus(GRACE)) >= 0) {
            return leaseLeft;
        }
        Duration left = expected.minus(inProgress.running());
        long seconds = left.toSeconds() + (left.toNanosPart() > 0 ? 1 : 0);
        Duration rounded = Duration.ofSeconds(Math.max(1, seconds));
        return rounded.compareTo(leaseLeft) > 0 ? leaseLeft : rounded;
    }

    /** {@code execution}, timed: an execution that completes counts towards {@code endpoint}'s usual duration. */
    public Execution timed(String endpoint, Execution execution) {
        return new Timed(endpoint, execution, nanoTime.getAsLong());
    }

    private final class Timed implements Execution {
        private final String endpoint;
        private final Execution delegate;
        private final long start;

        Timed(String endpoint, Execution delegate, long start) {
            this.endpoint = endpoint;
            this.delegate = delegate;
            this.start = start;
        }

        @Override
        public boolean isProtected() {
            return delegate.isProtected();
        }

        @Override
        public Outcome.Executed complete(StoredResponse response) {
            observed();
            return delegate.complete(response);
        }

        @Override
        public Outcome.Executed completeWithoutResponse(int status) {
            observed();
            return delegate.completeWithoutResponse(status);
        }

        @Override
        public void fail(Throwable failure) {
            delegate.fail(failure);
        }

        private void observed() {
            record(endpoint, Duration.ofNanos(nanoTime.getAsLong() - start));
        }
    }
}
