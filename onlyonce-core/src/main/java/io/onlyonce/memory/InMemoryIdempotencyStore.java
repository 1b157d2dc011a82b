package io.onlyonce.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * {@link IdempotencyStore} in this JVM's memory: atomic through {@code ConcurrentMap.compute}.
 * Records are lost on restart and not shared between instances: for tests and one-node services.
 *
 * <p>Time is this store's clock (the JVM's by default). The store holds at most
 * {@code maximumSize} live records and never evicts one to make room: a claim of a new key beyond
 * that bound is refused with {@link StoreUnavailableException}, since dropping a completed record
 * would let its request run a second time.
 *
 * <p>No call blocks (each is one map operation), so the {@link AsyncIdempotencyStore} methods run
 * on the caller's thread and answer completed stages.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore, AsyncIdempotencyStore {

    /** A record and its deadline on this store's clock. */
    private record Entry(IdempotencyRecord record, Instant expiresAt) {
    }

    private final InstantSource clock;
    private final long maximumSize;
    private final Cache<IdempotencyKey, Entry> cache;
    private final ConcurrentMap<IdempotencyKey, Entry> records;

    /** A store on {@code clock} holding at most {@code maximumSize} live records. */
    public InMemoryIdempotencyStore(InstantSource clock, long maximumSize) {
        if (maximumSize < 1) {
            throw new IllegalArgumentException("maximumSize must be positive");
        }
        this.clock = clock;
        this.maximumSize = maximumSize;
        Ticker ticker = ClockTicker.of(clock);
        this.cache = Caffeine.newBuilder()
                .ticker(ticker)
                .expireAfter(ClockTicker.<IdempotencyKey, Entry>until(ticker, Entry::expiresAt))
                .build();
        this.records = cache.asMap();
    }

    /** A store on the system clock holding at most one million records. */
    public InMemoryIdempotencyStore() {
        this(InstantSource.system(), 1_000_000);
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        Instant now = clock.instant();
        OwnerToken owner = OwnerToken.random();
        Entry mine = new Entry(new IdempotencyRecord(key, RecordStatus.IN_PROGRESS, fingerprint, owner, lease, null),
                now.plus(lease));
        if (!records.containsKey(key)) {
            ensureRoom();
        }
        Entry result = records.compute(key, (k, current) -> live(current, now) ? current : mine);
        return result == mine ? new ClaimResult.Claimed(owner) : new ClaimResult.Existing(view(result, now));
    }

    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
        Instant now = clock.instant();
        boolean[] done = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (!holds(current, owner, now)) {
                return current;
            }
            done[0] = true;
            IdempotencyRecord held = current.record();
            return new Entry(new IdempotencyRecord(k, RecordStatus.COMPLETED, held.fingerprint(), owner, retention, response),
                    now.plus(retention));
        });
        return done[0];
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner) {
        Instant now = clock.instant();
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
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Instant now = clock.instant();
        Entry current = records.get(key);
        return live(current, now) ? Optional.of(view(current, now)) : Optional.empty();
    }

    @Override
    public CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        return AsyncIdempotencyStore.now(() -> claim(key, fingerprint, lease));
    }

    @Override
    public CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response,
            Duration retention) {
        return AsyncIdempotencyStore.now(() -> complete(key, owner, response, retention));
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner) {
        return AsyncIdempotencyStore.now(() -> release(key, owner));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> findAsync(IdempotencyKey key) {
        return AsyncIdempotencyStore.now(() -> find(key));
    }

    private void ensureRoom() {
        if (cache.estimatedSize() >= maximumSize) {
            cache.cleanUp();
            if (cache.estimatedSize() >= maximumSize) {
                throw new StoreUnavailableException("claim",
                        new IllegalStateException("the in-memory store holds its maximum of " + maximumSize + " records"));
            }
        }
    }

    private static boolean live(@Nullable Entry entry, Instant now) {
        return entry != null && now.isBefore(entry.expiresAt());
    }

    private static boolean holds(Entry current, OwnerToken owner, Instant now) {
        return live(current, now) && current.record().status() == RecordStatus.IN_PROGRESS
                && current.record().owner().equals(owner);
    }

    /** The record with the time it has left at {@code now}. */
    private static IdempotencyRecord view(Entry entry, Instant now) {
        IdempotencyRecord r = entry.record();
        return new IdempotencyRecord(r.key(), r.status(), r.fingerprint(), r.owner(),
                Duration.between(now, entry.expiresAt()), r.response());
    }
}
