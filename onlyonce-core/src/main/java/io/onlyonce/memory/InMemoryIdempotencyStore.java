package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;

/**
 * {@link IdempotencyStore} in this JVM's memory: atomic through {@code ConcurrentMap.compute}.
 * Records are lost on restart and not shared between instances: for tests and one-node services.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {

    private final ConcurrentMap<IdempotencyKey, IdempotencyRecord> records;

    /** A store whose memory reclamation follows {@code clock}, holding at most {@code maximumSize} completed records. */
    public InMemoryIdempotencyStore(InstantSource clock, long maximumSize) {
        Ticker ticker = ClockTicker.of(clock);
        // records in progress weigh nothing: eviction at the size bound may drop completed
        // records (their keys execute again), never a claim that is still running
        Cache<IdempotencyKey, IdempotencyRecord> cache = Caffeine.newBuilder()
                .ticker(ticker)
                .maximumWeight(maximumSize)
                .weigher((IdempotencyKey key, IdempotencyRecord record) -> record.status() == RecordStatus.IN_PROGRESS ? 0 : 1)
                .expireAfter(ClockTicker.<IdempotencyKey, IdempotencyRecord>until(ticker, IdempotencyRecord::expiresAt))
                .build();
        this.records = cache.asMap();
    }

    /** A store on the system clock holding at most one million records. */
    public InMemoryIdempotencyStore() {
        this(InstantSource.system(), 1_000_000);
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Instant now, Duration lease) {
        OwnerToken owner = OwnerToken.random();
        IdempotencyRecord mine = new IdempotencyRecord(key, RecordStatus.IN_PROGRESS, fingerprint, owner, now.plus(lease), null);
        IdempotencyRecord result = records.compute(key, (k, current) ->
                current == null || current.statusAt(now) == RecordStatus.EXPIRED ? mine : current);
        return result == mine ? new ClaimResult.Claimed(owner) : new ClaimResult.Existing(result);
    }

    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, StoredResponse response, Instant now, Duration retention) {
        IdempotencyRecord[] done = new IdempotencyRecord[1];
        records.computeIfPresent(key, (k, current) -> {
            if (!holds(current, owner, now)) {
                return current;
            }
            done[0] = new IdempotencyRecord(k, RecordStatus.COMPLETED, current.fingerprint(), owner, now.plus(retention), response);
            return done[0];
        });
        return done[0] != null;
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner, Instant now) {
        boolean[] released = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (!holds(current, owner, now)) {
                return current;
            }
            released[0] = true;
            return null;
        });
        return released[0];
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key, Instant now) {
        IdempotencyRecord current = records.get(key);
        return current == null || current.statusAt(now) == RecordStatus.EXPIRED ? Optional.empty() : Optional.of(current);
    }

    private static boolean holds(IdempotencyRecord current, OwnerToken owner, Instant now) {
        return current.statusAt(now) == RecordStatus.IN_PROGRESS && current.owner().equals(owner);
    }
}
