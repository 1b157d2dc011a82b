package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.onlyonce.Fingerprint;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentMap;

/**
 * {@link WindowStore} in this JVM's memory; one atomic {@code compute} per hit. Time is this
 * store's clock. At most {@code maximumSize} windows are kept; beyond that the least recently used
 * are dropped, which only lets a request through the de-dup layer that the layers behind still judge.
 */
public final class InMemoryWindowStore implements WindowStore {

    private record Window(Instant end, long count) {
    }

    private final InstantSource clock;
    private final ConcurrentMap<Fingerprint, Window> windows;

    public InMemoryWindowStore(InstantSource clock, long maximumSize) {
        this.clock = clock;
        Ticker ticker = ClockTicker.of(clock);
        this.windows = Caffeine.newBuilder()
                .ticker(ticker)
                .maximumSize(maximumSize)
                .expireAfter(ClockTicker.<Fingerprint, Window>until(ticker, Window::end))
                .<Fingerprint, Window>build()
                .asMap();
    }

    public InMemoryWindowStore() {
        this(InstantSource.system(), 1_000_000);
    }

    @Override
    public WindowHit hit(Fingerprint key, Duration window) {
        Instant now = clock.instant();
        Window result = windows.compute(key, (k, current) -> current == null || !now.isBefore(current.end())
                ? new Window(now.plus(window), 1)
                : new Window(current.end(), current.count() + 1));
        return new WindowHit(result.count(), Duration.between(now, result.end()));
    }

    @Override
    public void release(Fingerprint key) {
        Instant now = clock.instant();
        windows.computeIfPresent(key, (k, current) -> !now.isBefore(current.end()) || current.count() <= 1
                ? null
                : new Window(current.end(), current.count() - 1));
    }
}
