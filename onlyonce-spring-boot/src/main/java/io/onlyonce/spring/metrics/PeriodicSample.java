package io.onlyonce.spring.metrics;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A value read from a store every {@code interval} on a daemon thread of its own, so that a gauge
 * reads memory at scrape time: a scrape never waits on a store, however slow or dead it is. The
 * value is {@linkplain #current() current} while the last read succeeded and is younger than twice
 * the interval; otherwise (a failed read, or one that has not come back) there is none, and the
 * gauges built on it read NaN.
 *
 * @param <T> what one read returns
 */
public final class PeriodicSample<T> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PeriodicSample.class);

    private record Taken<T>(T value, long atNanos) {
    }

    private final String name;
    private final Duration interval;
    private final Supplier<T> read;
    private final Consumer<T> onRead;
    private final LongSupplier nanoTime;
    private volatile @Nullable Taken<T> last;
    private volatile boolean failing;
    private @Nullable ScheduledExecutorService executor;

    /**
     * A sample, not read until {@link #start()}.
     *
     * @param name what is read, for the thread's name and the log
     * @param interval how often it is read
     * @param read one read; it may throw, and should bound its own time
     * @param onRead told of each value read, on the sampling thread (to register a gauge for a new tag, say)
     */
    public PeriodicSample(String name, Duration interval, Supplier<T> read, Consumer<T> onRead) {
        this(name, interval, read, onRead, System::nanoTime);
    }

    /** A sample on the ticker {@code nanoTime} (tests move it). */
    PeriodicSample(String name, Duration interval, Supplier<T> read, Consumer<T> onRead, LongSupplier nanoTime) {
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.name = Objects.requireNonNull(name, "name");
        this.interval = Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval must be positive");
        }
        this.read = Objects.requireNonNull(read, "read");
        this.onRead = Objects.requireNonNull(onRead, "onRead");
    }

    /** Reads now and then every interval; does nothing when started. */
    public synchronized PeriodicSample<T> start() {
        if (executor == null) {
            executor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "onlyonce-metrics-" + name);
                thread.setDaemon(true);
                return thread;
            });
            executor.scheduleWithFixedDelay(this::readOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /** Reads once on the caller's thread; what {@link #start()} runs every interval. */
    public void readOnce() {
        try {
            T value = read.get();
            last = new Taken<>(value, nanoTime.getAsLong());
            if (failing) {
                failing = false;
                log.info("metrics of {} read again", name);
            }
            onRead.accept(value);
        } catch (RuntimeException e) {
            last = null;
            if (!failing) {
                failing = true;
                log.warn("metrics of {} could not be read (NaN until they can): {}", name, e.toString());
            }
        }
    }

    /** The last value read, while it is fresh. */
    public Optional<T> current() {
        Taken<T> taken = last;
        if (taken == null || nanoTime.getAsLong() - taken.atNanos() > 2 * interval.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(taken.value());
    }

    /**
     * What a gauge on this sample reads: {@code value} of the last value read while it is fresh, NaN
     * otherwise.
     */
    public double gauge(ToDoubleFunction<? super T> value) {
        return current().map(value::applyAsDouble).orElse(Double.NaN);
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }
}
