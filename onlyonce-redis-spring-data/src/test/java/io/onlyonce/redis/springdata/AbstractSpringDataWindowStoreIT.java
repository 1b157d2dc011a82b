package io.onlyonce.redis.springdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The window store contract through a Spring Data {@code RedisConnectionFactory}; subclasses pick the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractSpringDataWindowStoreIT extends AbstractWindowStoreContractTest {

    private final Client client;
    private ContractFixture redis;

    AbstractSpringDataWindowStoreIT(Client client) {
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
    protected WindowStore createStore() {
        return RedisWindowStore.of(redis.connection(), redis.config());
    }

    @Override
    protected WindowStore createSecondClient() {
        return RedisWindowStore.of(redis.secondConnection(), redis.config());
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                connection -> RedisWindowStore.of(connection, redis.deadConfig()),
                store -> assertThat(store.hit(Fingerprint.of("alive"), WINDOW).first()).isTrue()));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
