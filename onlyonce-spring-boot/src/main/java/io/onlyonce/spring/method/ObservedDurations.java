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
 * How long the protected work of each endpoint takes, as this instance observed it, so that a
 * {@code 409 in progress} suggests a {@code Retry-After} a client can honour: the usual duration
 * less what the holder has already run, at least one second and at most what is left of the lease.
 * A method that takes 100 ms is retried after a second, not after the rest of a 30 s lease.
 *
 * <p>The usual duration is an exponentially weighted mean of the executions that completed (one in
 * five counts for the newest); before the first, one second is suggested. Thread-safe; one mean per
 * endpoint, which is bounded by the application's methods and routes.
 */
public final class ObservedDurations {

    private static final Duration MIN = Duration.ofSeconds(1);
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
     * The wait to suggest for an {@code in progress} outcome of {@code endpoint}: the usual duration
     * less what the holder has run, rounded up to whole seconds, between one second and the rest of
     * the lease.
     */
    public Duration retryAfter(String endpoint, Outcome.InProgress inProgress) {
        Duration usual = usual(endpoint);
        Duration left = usual == null ? MIN : usual.minus(inProgress.running());
        long seconds = left.toSeconds() + (left.toNanosPart() > 0 ? 1 : 0);
        Duration rounded = Duration.ofSeconds(Math.max(1, seconds));
        return rounded.compareTo(inProgress.retryAfter()) > 0 ? inProgress.retryAfter() : rounded;
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
