package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.onlyonce.Fingerprint;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentMap;

/** {@link WindowStore} in this JVM's memory; one atomic {@code compute} per call. */
public final class InMemoryWindowStore implements WindowStore {

    private final ConcurrentMap<Fingerprint, Instant> windows;

    public InMemoryWindowStore(InstantSource clock, long maximumSize) {
        Ticker ticker = ClockTicker.of(clock);
        this.windows = Caffeine.newBuilder()
                .ticker(ticker)
                .maximumSize(maximumSize)
                .expireAfter(ClockTicker.<Fingerprint, Instant>until(ticker, end -> end))
                .<Fingerprint, Instant>build()
                .asMap();
    }

    public InMemoryWindowStore() {
        this(InstantSource.system(), 1_000_000);
    }

    @Override
    public boolean firstInWindow(Fingerprint fingerprint, Duration window, Instant now) {
        Instant mine = now.plus(window);
        Instant result = windows.compute(fingerprint, (k, end) -> end == null || !now.isBefore(end) ? mine : end);
        return result == mine;
    }
}
