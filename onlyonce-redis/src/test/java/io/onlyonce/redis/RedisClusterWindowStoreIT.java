package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The window store contract on a Redis Cluster; the dead server is a private one-node Cluster (see
 * {@link RedisClusterIdempotencyStoreIT} for why).
 */
class RedisClusterWindowStoreIT extends AbstractWindowStoreContractTest {

    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(RedisTestSettings.randomPrefix(), 1024);
    private static SharedRedis.Cluster redis;

    private PrivateRedisServer deadServer;

    @BeforeAll
    static void connect() {
        redis = new SharedRedis.Cluster(CONFIG.keyPrefix());
    }

    @AfterAll
    static void deleteKeysAndDisconnect() {
        redis.close();
    }

    @Override
    protected WindowStore createStore() {
        return RedisWindowStore.cluster(redis.connection(), CONFIG);
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
        deadServer = PrivateRedisServer.startClusterNode();
        WindowStore store = RedisWindowStore.cluster(deadServer.connectCluster(), CONFIG);
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
