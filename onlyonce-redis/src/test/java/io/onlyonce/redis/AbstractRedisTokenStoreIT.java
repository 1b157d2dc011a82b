package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The token store contract on Redis; subclasses pick the topology or the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisTokenStoreIT extends AbstractTokenStoreContractTest {

    private final Supplier<? extends RedisStoreFixture> fixture;
    private RedisStoreFixture redis;

    protected AbstractRedisTokenStoreIT(Supplier<? extends RedisStoreFixture> fixture) {
        this.fixture = fixture;
    }

    AbstractRedisTokenStoreIT(RedisFixture.Topology topology) {
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
    protected TokenStore createStore() {
        return redis.stores().tokens(redis.config());
    }

    @Override
    protected Optional<TokenStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                stores -> stores.tokens(redis.deadConfig()),
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
