package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An {@link IdempotencyStore} whose calls go through a circuit breaker. An open circuit refuses
 * claims and lookups (new work is not started on a failing store) but never a completion or a
 * release: the work they record already ran, so they are attempted within the store's budget, and
 * their outcome counts toward the breaker.
 */
public final class CircuitBreakerIdempotencyStore implements IdempotencyStore {

    private final IdempotencyStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakerIdempotencyStore(IdempotencyStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        return CircuitBreakers.call(breaker, "claim", () -> delegate.claim(key, fingerprint, lease));
    }

    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
        return CircuitBreakers.attempt(breaker, () -> delegate.complete(key, owner, response, retention));
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner) {
        return CircuitBreakers.attempt(breaker, () -> delegate.release(key, owner));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return CircuitBreakers.call(breaker, "find", () -> delegate.find(key));
    }
}
