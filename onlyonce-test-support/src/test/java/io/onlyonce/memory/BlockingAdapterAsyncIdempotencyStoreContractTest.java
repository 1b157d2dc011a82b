package io.onlyonce.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.AbstractAsyncIdempotencyStoreContractTest;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A blocking store adapted with {@link AsyncIdempotencyStore#blocking}: the contract holds, and calls run on the executor. */
class BlockingAdapterAsyncIdempotencyStoreContractTest extends AbstractAsyncIdempotencyStoreContractTest {

    private final ExecutorService executor = Executors.newFixedThreadPool(4, r -> new Thread(r, "store-pool"));
    private AsyncIdempotencyStore adapted;
    /** The thread the blocking store's last find ran on. */
    private final AtomicReference<String> findThread = new AtomicReference<>();

    @Override
    protected AsyncIdempotencyStore createAsyncStore() {
        if (adapted == null) {
            IdempotencyStore memory = new InMemoryIdempotencyStore(clock, 10_000);
            IdempotencyStore blockingOnly = new IdempotencyStore() {
                @Override
                public io.onlyonce.store.ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
                    return memory.claim(key, fingerprint, lease);
                }

                @Override
                public boolean complete(IdempotencyKey key, io.onlyonce.store.OwnerToken owner,
                        io.onlyonce.StoredResponse response, Duration retention) {
                    return memory.complete(key, owner, response, retention);
                }

                @Override
                public boolean release(IdempotencyKey key, io.onlyonce.store.OwnerToken owner) {
                    return memory.release(key, owner);
                }

                @Override
                public java.util.Optional<io.onlyonce.store.IdempotencyRecord> find(IdempotencyKey key) {
                    findThread.set(Thread.currentThread().getName());
                    if (!Thread.currentThread().getName().equals("store-pool")) {
                        throw new AssertionError("called on " + Thread.currentThread().getName());
                    }
                    return memory.find(key);
                }
            };
            adapted = AsyncIdempotencyStore.of(blockingOnly, executor);
        }
        return adapted;
    }

    @Override
    protected void elapse(Duration duration) {
        clock.advance(duration);
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        executor.shutdown();
        executor.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aStoreThatIsAsynchronousItselfIsNotAdapted() {
        InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();
        assertThat(AsyncIdempotencyStore.of(memory, executor)).isSameAs(memory);
    }

    @Test
    void blockingCallsRunOnTheExecutor() throws Exception {
        // where the blocking call ran, not where a continuation runs (the caller's thread when the
        // stage has completed before it is attached)
        createAsyncStore().findAsync(new IdempotencyKey("s", "k")).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(findThread.get()).isEqualTo("store-pool");
    }
}
