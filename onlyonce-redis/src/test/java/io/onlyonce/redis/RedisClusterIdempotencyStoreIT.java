package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The idempotency store contract on a Redis Cluster. The dead server is a one-node Cluster of the
 * test's own, not a node of the shared Cluster: killing a shared node would break every other test,
 * and a plain server cannot take a Cluster connection, so only a private Cluster node lets the
 * {@code cluster(...)} store prove it fails loudly when its server dies.
 */
class RedisClusterIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {

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
    protected IdempotencyStore createStore() {
        return RedisIdempotencyStore.cluster(redis.connection(), CONFIG);
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        deadServer = PrivateRedisServer.startClusterNode();
        IdempotencyStore store = RedisIdempotencyStore.cluster(deadServer.connectCluster(), CONFIG);
        assertThat(store.claim(new IdempotencyKey("s", "alive"), Fingerprint.of("a"), clock.instant(), LEASE))
                .isInstanceOf(ClaimResult.Claimed.class);
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
