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

/** The idempotency store contract on a standalone Redis. */
class RedisIdempotencyStoreIT extends AbstractIdempotencyStoreContractTest {

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
    protected IdempotencyStore createStore() {
        return RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        deadServer = PrivateRedisServer.start();
        IdempotencyStore store = RedisIdempotencyStore.standalone(deadServer.connect(), CONFIG);
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
