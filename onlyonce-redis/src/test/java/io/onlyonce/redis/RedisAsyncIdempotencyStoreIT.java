package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import java.time.Duration;
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
        return (AsyncIdempotencyStore) (redis.stores().idempotency(redis.config()));
    }

    @Override
    protected AsyncIdempotencyStore createAsyncSecondClient() {
        return (AsyncIdempotencyStore) (redis.secondStores().idempotency(redis.config()));
    }

    @Override
    protected Optional<AsyncIdempotencyStore> createUnreachableAsyncStore() throws Exception {
        return Optional.of((AsyncIdempotencyStore) (redis.storeOnKilledServer(
                stores -> stores.idempotency(redis.deadConfig()),
                store -> assertThat(store.claim(new IdempotencyKey("s", "alive"), Fingerprint.of("a"), Duration.ofSeconds(30)))
                        .isInstanceOf(ClaimResult.Claimed.class))));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
