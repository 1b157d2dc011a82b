package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentMap;

/**
 * {@link TokenStore} in this JVM's memory; consume is one atomic {@code replace}. Time is this
 * store's clock. It holds at most {@code maximumSize} live tokens and never evicts one to make room:
 * beyond that bound {@link #save} refuses the new token.
 */
public final class InMemoryTokenStore implements TokenStore {

    private enum State { CREATED, CONSUMED }

    private record Entry(Instant expiresAt, State state) {
    }

    private final InstantSource clock;
    private final long maximumSize;
    private final Cache<String, Entry> cache;
    private final ConcurrentMap<String, Entry> tokens;

    public InMemoryTokenStore(InstantSource clock, long maximumSize) {
        if (maximumSize < 1) {
            throw new IllegalArgumentException("maximumSize must be positive");
        }
        this.clock = clock;
        this.maximumSize = maximumSize;
        Ticker ticker = ClockTicker.of(clock);
        this.cache = Caffeine.newBuilder()
                .ticker(ticker)
                .expireAfter(ClockTicker.<String, Entry>until(ticker, Entry::expiresAt))
                .build();
        this.tokens = cache.asMap();
    }

    public InMemoryTokenStore() {
        this(InstantSource.system(), 1_000_000);
    }

    @Override
    public boolean save(OneTimeToken token, Duration ttl) {
        if (cache.estimatedSize() >= maximumSize) {
            cache.cleanUp();
            if (cache.estimatedSize() >= maximumSize) {
                return false;
            }
        }
        tokens.putIfAbsent(token.id(), new Entry(clock.instant().plus(ttl), State.CREATED));
        return true;
    }

    @Override
    public boolean consume(OneTimeToken token) {
        return transition(token, State.CREATED, State.CONSUMED);
    }

    @Override
    public boolean restore(OneTimeToken token) {
        return transition(token, State.CONSUMED, State.CREATED);
    }

    private boolean transition(OneTimeToken token, State from, State to) {
        Entry current = tokens.get(token.id());
        if (current == null || current.state() != from || !clock.instant().isBefore(current.expiresAt())) {
            return false;
        }
        return tokens.replace(token.id(), current, new Entry(current.expiresAt(), to));
    }
}
