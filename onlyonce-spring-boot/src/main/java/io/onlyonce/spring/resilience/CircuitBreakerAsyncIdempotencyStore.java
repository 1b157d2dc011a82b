package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An {@link AsyncIdempotencyStore} whose calls go through a circuit breaker (the blocking store's
 * breaker, so both paths open and close it together): each call's outcome and duration count when
 * its stage completes; an open circuit fails a claim's or a lookup's stage with
 * {@link StoreUnavailableException} without calling the store, but never refuses a completion or a
 * release (the work they record already ran).
 */
public final class CircuitBreakerAsyncIdempotencyStore implements AsyncIdempotencyStore {

    private final AsyncIdempotencyStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakerAsyncIdempotencyStore(AsyncIdempotencyStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        return call("claim", false, () -> delegate.claimAsync(key, fingerprint, lease));
    }

    @Override
    public CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response,
            Duration retention) {
        return call("complete", true, () -> delegate.completeAsync(key, owner, response, retention));
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner) {
        return call("release", true, () -> delegate.releaseAsync(key, owner));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> findAsync(IdempotencyKey key) {
        return call("find", false, () -> delegate.findAsync(key));
    }

    private <T> CompletionStage<T> call(String operation, boolean recordsDoneWork, Supplier<CompletionStage<T>> call) {
        if (!recordsDoneWork && !breaker.tryAcquirePermission()) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(operation + " (circuit open)",
                    CallNotPermittedException.createCallNotPermittedException(breaker)));
        }
        long start = breaker.getCurrentTimestamp();
        return AsyncIdempotencyStore.stage(call).whenComplete((value, failure) -> {
            long duration = breaker.getCurrentTimestamp() - start;
            if (failure == null) {
                breaker.onResult(duration, breaker.getTimestampUnit(), value);
            } else {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                breaker.onError(duration, breaker.getTimestampUnit(), cause);
            }
        });
    }
}
