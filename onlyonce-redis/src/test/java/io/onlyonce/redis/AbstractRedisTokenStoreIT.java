package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The token store contract on Redis; subclasses pick the topology. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractRedisTokenStoreIT extends AbstractTokenStoreContractTest {

    private final RedisFixture.Topology topology;
    private RedisFixture redis;

    AbstractRedisTokenStoreIT(RedisFixture.Topology topology) {
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
    protected TokenStore createStore() {
        return RedisTokenStore.of(redis.connection(), redis.config());
    }

    @Override
    protected Optional<TokenStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                connection -> RedisTokenStore.of(connection, redis.config()),
                store -> {
                    OneTimeToken token = newToken(TTL);
                    assertThat(store.save(token, TTL)).isTrue();
                    assertThat(store.consume(token)).isTrue();
                }));
    }

    @Override
    protected void cleanUp() throws Exception {
        redis.closeKilledServer();
    }
}
