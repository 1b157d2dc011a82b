package io.onlyonce.redis.springdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.testing.AbstractAsyncIdempotencyStoreContractTest;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The idempotency store contract through its asynchronous methods (what WebFlux calls) on Jedis, a
 * blocking client: each call runs on a thread of its own within its budget, never on the caller's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JedisAsyncIdempotencyStoreIT extends AbstractAsyncIdempotencyStoreContractTest {

    private ContractFixture redis;

    @BeforeAll
    void connect() {
        redis = new ContractFixture(Client.JEDIS);
    }

    @AfterAll
    void deleteKeysAndDisconnect() throws Exception {
        redis.close();
    }

    @Override
    protected AsyncIdempotencyStore createAsyncStore() {
        return (AsyncIdempotencyStore) redis.stores().idempotency(redis.config());
    }

    @Override
    protected AsyncIdempotencyStore createAsyncSecondClient() {
        return (AsyncIdempotencyStore) redis.secondStores().idempotency(redis.config());
    }

    @Override
    protected Optional<AsyncIdempotencyStore> createUnreachableAsyncStore() throws Exception {
        return Optional.of((AsyncIdempotencyStore) redis.storeOnKilledServer(
                stores -> stores.idempotency(redis.deadConfig()),
                store -> assertThat(store.claim(new IdempotencyKey("s", "alive"), Fingerprint.of("a"), Duration.ofSeconds(30)))
                        .isInstanceOf(ClaimResult.Claimed.class)));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
