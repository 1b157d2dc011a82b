package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The window store contract on a standalone Redis. */
class RedisWindowStoreIT extends AbstractWindowStoreContractTest {

    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(RedisTestSettings.randomPrefix(), 1024);
    private static SharedRedis.Standalone redis;

    private PrivateRedisServer deadServer;

    @BeforeAll
    static void connect() {
        redis = new SharedRedis.Standalone(CONFIG.keyPrefix());
    }

    @AfterAll
    static void deleteKeysAndDisconnect() {
        redis.close();
    }

    @Override
    protected WindowStore createStore() {
        return RedisWindowStore.standalone(redis.connection(), CONFIG);
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
        deadServer = PrivateRedisServer.start();
        WindowStore store = RedisWindowStore.standalone(deadServer.connect(), CONFIG);
        assertThat(store.firstInWindow(Fingerprint.of("alive"), WINDOW, clock.instant())).isTrue();
        deadServer.kill();
        return Optional.of(store);
    }

    @Override
    protected void cleanUp() throws Exception {
        if (deadServer != null) {
            deadServer.close();
        }
    }
}
