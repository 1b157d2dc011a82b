package io.onlyonce.redis.springdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.redis.RedisTokenStore;
import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The token store contract through a Spring Data {@code RedisConnectionFactory}; subclasses pick the client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractSpringDataTokenStoreIT extends AbstractTokenStoreContractTest {

    private final Client client;
    private ContractFixture redis;

    AbstractSpringDataTokenStoreIT(Client client) {
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
    protected TokenStore createStore() {
        return RedisTokenStore.of(redis.connection(), redis.config());
    }

    @Override
    protected Optional<TokenStore> createUnreachableStore() throws Exception {
        return Optional.of(redis.storeOnKilledServer(
                connection -> RedisTokenStore.of(connection, redis.deadConfig()),
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
