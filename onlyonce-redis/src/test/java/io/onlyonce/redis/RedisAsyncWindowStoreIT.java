package io.onlyonce.redis;

import io.onlyonce.Fingerprint;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The window store contract through {@link RedisWindowStore#hitAsync(Fingerprint, Duration)}, the
 * call the reactive gateway filter makes, on a standalone Redis ({@code release} stays blocking).
 */
class RedisAsyncWindowStoreIT extends AbstractRedisWindowStoreIT {

    RedisAsyncWindowStoreIT() {
        super(RedisFixture.Topology.STANDALONE);
    }

    @Override
    protected WindowStore createStore() {
        return async(super.createStore());
    }

    @Override
    protected WindowStore createSecondClient() {
        return async(super.createSecondClient());
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
        return super.createUnreachableStore().map(RedisAsyncWindowStoreIT::async);
    }

    /** {@code store}'s hits through its asynchronous call, waited for; failures as the blocking call throws them. */
    private static WindowStore async(WindowStore store) {
        RedisWindowStore redis = (RedisWindowStore) store;
        return new WindowStore() {
            @Override
            public WindowHit hit(Fingerprint key, Duration window) {
                return join(redis.hitAsync(key, window));
            }

            @Override
            public void release(Fingerprint key) {
                redis.release(key);
            }
        };
    }

    private static <T> T join(CompletionStage<T> call) {
        try {
            return call.toCompletableFuture().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }
}
