package io.onlyonce.redis.springdata;

import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.testing.PrivateRedis;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What a contract test class on one client needs: a key prefix of its own, a store connection over
 * the client's factory to the test server, a second one over another factory (another application
 * instance), and stores on a private server that the test kills.
 */
final class ContractFixture implements AutoCloseable {

    /** The budget of a store on a killed server: short, so the suite's dead-server tests are quick. */
    static final Duration DEAD_BUDGET = Duration.ofMillis(500);

    private final Client client;
    private final RedisStoreConfig config = new RedisStoreConfig(TestServer.randomPrefix(), 1024);
    private final Client.Factory factory;
    private final RedisStoreConnection connection;
    private Client.@Nullable Factory secondFactory;
    private @Nullable RedisStoreConnection secondConnection;
    private @Nullable PrivateRedis deadServer;
    private Client.@Nullable Factory deadFactory;
    private @Nullable RedisStoreConnection deadConnection;

    ContractFixture(Client client) {
        this.client = client;
        this.factory = client.connectToTestServer();
        this.connection = SpringDataRedisStoreConnection.of(factory.factory());
    }

    RedisStoreConfig config() {
        return config;
    }

    RedisStoreConnection connection() {
        return connection;
    }

    /** Another factory of the same client on the test server, as a second application instance has. */
    RedisStoreConnection secondConnection() {
        if (secondConnection == null) {
            secondFactory = client.connectToTestServer();
            secondConnection = SpringDataRedisStoreConnection.of(secondFactory.factory());
        }
        return secondConnection;
    }

    /** A store on a private server: built, proven to work by {@code proveAlive}, then left with its server killed. */
    <S> S storeOnKilledServer(Function<RedisStoreConnection, S> storeOn, Consumer<S> proveAlive) throws Exception {
        deadServer = PrivateRedis.start();
        deadFactory = client.connect("127.0.0.1", deadServer.port(), Duration.ofSeconds(3));
        deadConnection = SpringDataRedisStoreConnection.of(deadFactory.factory());
        S store = storeOn.apply(deadConnection);
        proveAlive.accept(store);
        deadServer.close();
        return store;
    }

    /** The configuration of a store on the killed server: this class's prefix, a short budget. */
    RedisStoreConfig deadConfig() {
        return config.withCommandTimeout(DEAD_BUDGET);
    }

    void closeKilledServer() throws Exception {
        if (deadConnection != null) {
            deadConnection.close();
            deadConnection = null;
        }
        if (deadFactory != null) {
            deadFactory.close();
            deadFactory = null;
        }
        if (deadServer != null) {
            deadServer.close();
            deadServer = null;
        }
    }

    /** Deletes the keys under the prefix and shuts the clients down. */
    @Override
    public void close() throws Exception {
        closeKilledServer();
        try {
            TestServer.deleteKeys(config.keyPrefix());
        } finally {
            connection.close();
            factory.close();
            if (secondConnection != null) {
                secondConnection.close();
            }
            if (secondFactory != null) {
                secondFactory.close();
            }
        }
    }
}
