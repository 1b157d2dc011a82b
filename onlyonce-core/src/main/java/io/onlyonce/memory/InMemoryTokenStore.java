package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentMap;

/** {@link TokenStore} in this JVM's memory; consume is one atomic {@code replace}. */
public final class InMemoryTokenStore implements TokenStore {

    private enum State { CREATED, CONSUMED }

    private record Entry(Instant expiresAt, State state) {
    }

    private final ConcurrentMap<String, Entry> tokens;

    public InMemoryTokenStore(InstantSource clock, long maximumSize) {
        Ticker ticker = ClockTicker.of(clock);
        this.tokens = Caffeine.newBuilder()
                .ticker(ticker)
                .maximumSize(maximumSize)
                .expireAfter(ClockTicker.<String, Entry>until(ticker, Entry::expiresAt))
                .<String, Entry>build()
                .asMap();
    }

    public InMemoryTokenStore() {
        this(InstantSource.system(), 1_000_000);
    }

    @Override
    public void save(OneTimeToken token, Instant now) {
        tokens.putIfAbsent(token.id(), new Entry(token.expiresAt(), State.CREATED));
    }

    @Override
    public boolean consume(OneTimeToken token, Instant now) {
        return transition(token, now, State.CREATED, State.CONSUMED);
    }

    @Override
    public boolean restore(OneTimeToken token, Instant now) {
        return transition(token, now, State.CONSUMED, State.CREATED);
    }

    private boolean transition(OneTimeToken token, Instant now, State from, State to) {
        Entry current = tokens.get(token.id());
        if (current == null || current.state() != from || !now.isBefore(current.expiresAt())) {
            return false;
        }
        return tokens.replace(token.id(), current, new Entry(current.expiresAt(), to));
    }
}
