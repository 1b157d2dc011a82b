package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The token store contract on a standalone Redis. */
class RedisTokenStoreIT extends AbstractTokenStoreContractTest {

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
    protected TokenStore createStore() {
        return RedisTokenStore.standalone(redis.connection(), CONFIG);
    }

    @Override
    protected Optional<TokenStore> createUnreachableStore() throws Exception {
        deadServer = PrivateRedisServer.start();
        TokenStore store = RedisTokenStore.standalone(deadServer.connect(), CONFIG);
        OneTimeToken token = newToken(Duration.ofMinutes(10));
        store.save(token, clock.instant());
        assertThat(store.consume(token, clock.instant())).isTrue();
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
