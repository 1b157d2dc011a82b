package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The window store contract on Redis; subclasses pick the topology. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisWindowStoreIT extends AbstractWindowStoreContractTest {

    private final RedisFixture.Topology topology;
    private RedisFixture redis;

    AbstractRedisWindowStoreIT(RedisFixture.Topology topology) {
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
                connection -> RedisWindowStore.of(connection, redis.config()),
                store -> assertThat(store.hit(Fingerprint.of("alive"), WINDOW).first()).isTrue()));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
