package io.onlyonce.store;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The non-blocking form of {@link IdempotencyStore}, for callers that must not wait on a thread (an
 * event loop): the same four operations with the same rules, each answering a
 * {@link CompletionStage}. A call never blocks its caller; a failure completes the stage
 * exceptionally with {@link StoreUnavailableException} (the rules of {@link IdempotencyStore}), or
 * with the {@link IllegalArgumentException} the blocking call would have thrown.
 *
 * <p>The Redis store (Lettuce's asynchronous commands) and the in-memory store implement it
 * natively. Any other store is adapted with {@link #blocking}, which runs each blocking call on an
 * executor of the caller's choice: give it a bounded one.
 */
public interface AsyncIdempotencyStore {

    /** {@link IdempotencyStore#claim}, without blocking. */
    CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease);

    /** {@link IdempotencyStore#complete}, without blocking. */
    CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response,
            Duration retention);

    /** {@link IdempotencyStore#release}, without blocking. */
    CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner);

    /** {@link IdempotencyStore#find}, without blocking. */
    CompletionStage<Optional<IdempotencyRecord>> findAsync(IdempotencyKey key);

    /**
     * {@code store} itself when it implements this interface, otherwise {@link #blocking} on
     * {@code executor}.
     */
    static AsyncIdempotencyStore of(IdempotencyStore store, Executor executor) {
        return store instanceof AsyncIdempotencyStore async ? async : blocking(store, executor);
    }

    /**
     * {@code store}'s blocking calls, each run on {@code executor}; the caller's thread only
     * submits them. The executor bounds how many calls wait at once: a bounded pool, never the
     * caller's event loop.
     */
    static AsyncIdempotencyStore blocking(IdempotencyStore store, Executor executor) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(executor, "executor");
        return new AsyncIdempotencyStore() {
            @Override
            public CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
                return CompletableFuture.supplyAsync(() -> store.claim(key, fingerprint, lease), executor);
            }

            @Override
            public CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner,
                    @Nullable StoredResponse response, Duration retention) {
                return CompletableFuture.supplyAsync(() -> store.complete(key, owner, response, retention), executor);
            }

            @Override
            public CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner) {
                return CompletableFuture.supplyAsync(() -> store.release(key, owner), executor);
            }

            @Override
            public CompletionStage<Optional<IdempotencyRecord>> findAsync(IdempotencyKey key) {
                return CompletableFuture.supplyAsync(() -> store.find(key), executor);
            }

            @Override
            public String toString() {
                return "blocking(" + store + ")";
            }
        };
    }

    /**
     * The stage {@code call} answers; what it throws instead completes the stage exceptionally, so
     * that a caller handles every failure in one place.
     */
    static <T> CompletionStage<T> stage(Supplier<CompletionStage<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Runs {@code call} on the caller's thread, as a stage: what it throws completes the stage
     * exceptionally instead of escaping. For stores whose calls never block (the in-memory one).
     */
    static <T> CompletionStage<T> now(Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
