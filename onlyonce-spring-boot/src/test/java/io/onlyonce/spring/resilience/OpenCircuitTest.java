package io.onlyonce.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * An open circuit refuses new work, never the record of work already done: a completion (or a
 * release) of a claim taken before the circuit opened still reaches the store, so the retry is
 * replayed instead of running the work again once the lease ends.
 */
class OpenCircuitTest {

    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();
    private final CircuitBreaker breaker = CircuitBreaker.ofDefaults("onlyonce-idempotency");
    private final IdempotencyKey key = new IdempotencyKey("POST /orders alice", "k-1");
    private final StoredResponse created = StoredResponse.of(201, "{\"orderNo\":\"A1\"}".getBytes(StandardCharsets.UTF_8));

    @Test
    void aClaimTakenBeforeTheCircuitOpenedIsStillCompletedAndRefusedClaimsAreUnavailable() {
        CircuitBreakerIdempotencyStore store = new CircuitBreakerIdempotencyStore(memory, breaker);
        ClaimResult.Claimed claimed = (ClaimResult.Claimed) store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30));

        breaker.transitionToOpenState();
        assertThat(store.complete(key, claimed.owner(), created, Duration.ofHours(24))).isTrue();

        IdempotencyRecord record = memory.find(key).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.response()).isEqualTo(created);
        assertThatThrownBy(() -> store.claim(new IdempotencyKey("POST /orders alice", "k-2"), Fingerprint.of("b"),
                Duration.ofSeconds(30))).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("circuit open");
        assertThatThrownBy(() -> store.find(key)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void aReleaseReachesTheStoreThroughAnOpenCircuit() {
        CircuitBreakerIdempotencyStore store = new CircuitBreakerIdempotencyStore(memory, breaker);
        ClaimResult.Claimed claimed = (ClaimResult.Claimed) store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30));

        breaker.transitionToOpenState();

        assertThat(store.release(key, claimed.owner())).isTrue();
        assertThat(memory.find(key)).as("freed: a retry runs").isEmpty();
    }

    @Test
    void theNonBlockingPathDoesTheSame() {
        CircuitBreakerAsyncIdempotencyStore store = new CircuitBreakerAsyncIdempotencyStore(memory, breaker);
        ClaimResult.Claimed claimed = (ClaimResult.Claimed) store.claimAsync(key, Fingerprint.of("a"), Duration.ofSeconds(30))
                .toCompletableFuture().join();

        breaker.transitionToOpenState();

        assertThat(store.completeAsync(key, claimed.owner(), created, Duration.ofHours(24)).toCompletableFuture().join()).isTrue();
        assertThat(memory.find(key).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
        assertThatThrownBy(() -> store.claimAsync(new IdempotencyKey("POST /orders alice", "k-2"), Fingerprint.of("b"),
                Duration.ofSeconds(30)).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreUnavailableException.class);
        assertThat((Object) store).isInstanceOf(AsyncIdempotencyStore.class);
    }

    @Test
    void aFailingCompletionStillCountsTowardTheBreaker() {
        CircuitBreakerIdempotencyStore store = new CircuitBreakerIdempotencyStore(new IdempotencyStore() {
            @Override
            public ClaimResult claim(IdempotencyKey k, Fingerprint fingerprint, Duration lease) {
                return memory.claim(k, fingerprint, lease);
            }

            @Override
            public boolean complete(IdempotencyKey k, OwnerToken owner, StoredResponse response, Duration retention) {
                throw new StoreUnavailableException("complete", new IllegalStateException("down"));
            }

            @Override
            public boolean release(IdempotencyKey k, OwnerToken owner) {
                return memory.release(k, owner);
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey k) {
                return memory.find(k);
            }
        }, breaker);
        ClaimResult.Claimed claimed = (ClaimResult.Claimed) store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30));

        assertThatThrownBy(() -> store.complete(key, claimed.owner(), created, Duration.ofHours(24)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isEqualTo(1);
        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(1);
    }
}
