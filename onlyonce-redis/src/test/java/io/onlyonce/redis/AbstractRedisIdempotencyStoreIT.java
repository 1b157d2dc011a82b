package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The idempotency store contract on Redis; subclasses pick the topology or the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {

    private final Supplier<? extends RedisStoreFixture> fixture;
    private RedisStoreFixture redis;

    protected AbstractRedisIdempotencyStoreIT(Supplier<? extends RedisStoreFixture> fixture) {
        this.fixture = fixture;
    }

    AbstractRedisIdempotencyStoreIT(RedisFixture.Topology topology) {
        this(() -> new RedisFixture(topology));
    }

    @BeforeAll
    void connect() {
        redis = fixture.get();
    }

    @AfterAll
    void deleteKeysAndDisconnect() throws Exception {
        redis.close();
    }

    @Override
    protected IdempotencyStore createStore() {
        return redis.stores().idempotency(redis.config());
    }

    @Override
    protected IdempotencyStore createSecondClient() {
        return redis.secondStores().idempotency(redis.config());
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                stores -> stores.idempotency(redis.deadConfig()),
                store -> assertThat(store.claim(new IdempotencyKey("s", "alive"), Fingerprint.of("a"), LEASE))
                        .isInstanceOf(ClaimResult.Claimed.class)));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
