package io.onlyonce.redis.springdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The idempotency store contract through a Spring Data {@code RedisConnectionFactory}; subclasses pick the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractSpringDataIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {

    private final Client client;
    private ContractFixture redis;

    AbstractSpringDataIdempotencyStoreIT(Client client) {
        this.client = client;
    }

    @BeforeAll
    void connect() {
        redis = new ContractFixture(client);
    }

    @AfterAll
    void deleteKeysAndDisconnect() throws Exception {
        redis.close();
    }

    @Override
    protected IdempotencyStore createStore() {
        return RedisIdempotencyStore.of(redis.connection(), redis.config());
    }

    @Override
    protected IdempotencyStore createSecondClient() {
        return RedisIdempotencyStore.of(redis.secondConnection(), redis.config());
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                connection -> RedisIdempotencyStore.of(connection, redis.deadConfig()),
                store -> assertThat(store.claim(new IdempotencyKey("s", "alive"), Fingerprint.of("a"), LEASE))
                        .isInstanceOf(ClaimResult.Claimed.class)));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
