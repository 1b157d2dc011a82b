package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Function;

/** Caffeine plumbing shared by the in-memory stores: a ticker from a clock, expiry at a deadline. */
final class ClockTicker {

    private ClockTicker() {
    }

    static Ticker of(InstantSource clock) {
        return () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
    }

    /** Entries live until the deadline {@code deadline.apply(value)}, measured on the ticker. */
    static <K, V> Expiry<K, V> until(Ticker ticker, Function<V, Instant> deadline) {
        return new Expiry<>() {
            private long remaining(V value, long currentTime) {
                Instant end = deadline.apply(value);
                long endNanos = end.getEpochSecond() * 1_000_000_000L + end.getNano();
                return Math.max(0, endNanos - currentTime);
            }

            @Override
            public long expireAfterCreate(K key, V value, long currentTime) {
                return remaining(value, currentTime);
            }

            @Override
            public long expireAfterUpdate(K key, V value, long currentTime, long currentDuration) {
                return remaining(value, currentTime);
            }

            @Override
            public long expireAfterRead(K key, V value, long currentTime, long currentDuration) {
                return currentDuration;
            }
        };
    }
}
