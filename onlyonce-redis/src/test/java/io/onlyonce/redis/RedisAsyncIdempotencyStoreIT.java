package io.onlyonce.redis;

import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.testing.AbstractAsyncIdempotencyStoreContractTest;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The idempotency store contract through the asynchronous methods, on a standalone Redis. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisAsyncIdempotencyStoreIT extends AbstractAsyncIdempotencyStoreContractTest {

    private RedisFixture redis;

    @BeforeAll
    void connect() {
        redis = new RedisFixture(RedisFixture.Topology.STANDALONE);
    }

    @AfterAll
    void deleteKeysAndDisconnect() throws Exception {
        redis.close();
    }

    @Override
    protected AsyncIdempotencyStore createAsyncStore() {
        return redis.idempotencyStore();
    }

    @Override
    protected AsyncIdempotencyStore createAsyncSecondClient() {
        return redis.secondIdempotencyStore();
    }

    @Override
    protected Optional<AsyncIdempotencyStore> createUnreachableAsyncStore() throws Exception {
        return Optional.of(redis.idempotencyStoreOnKilledServer());
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
