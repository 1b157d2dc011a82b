package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The window store contract on Redis; subclasses pick the topology or the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisWindowStoreIT extends AbstractWindowStoreContractTest {

    private final Supplier<? extends RedisStoreFixture> fixture;
    private RedisStoreFixture redis;

    protected AbstractRedisWindowStoreIT(Supplier<? extends RedisStoreFixture> fixture) {
        this.fixture = fixture;
    }

    AbstractRedisWindowStoreIT(RedisFixture.Topology topology) {
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
    protected WindowStore createStore() {
        return redis.stores().windows(redis.config());
    }

    @Override
    protected WindowStore createSecondClient() {
        return redis.secondStores().windows(redis.config());
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                stores -> stores.windows(redis.deadConfig()),
                store -> assertThat(store.hit(Fingerprint.of("alive"), WINDOW).first()).isTrue()));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
