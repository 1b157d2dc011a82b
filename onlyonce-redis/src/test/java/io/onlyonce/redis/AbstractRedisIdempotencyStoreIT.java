package io.onlyonce.redis;

import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The idempotency store contract on Redis; subclasses pick the topology. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {

    private final RedisFixture.Topology topology;
    private RedisFixture redis;

    AbstractRedisIdempotencyStoreIT(RedisFixture.Topology topology) {
        this.topology = topology;
    }

    @BeforeAll
    void connect() {
        redis = new RedisFixture(topology);
    }

    @AfterAll
    void deleteKeysAndDisconnect() throws Exception {
        redis.close();
    }

    @Override
    protected IdempotencyStore createStore() {
        return redis.idempotencyStore();
    }

    @Override
    protected IdempotencyStore createSecondClient() {
        return redis.secondIdempotencyStore();
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.idempotencyStoreOnKilledServer());
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
