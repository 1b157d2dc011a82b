package io.onlyonce.redis.springdata;

import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.RedisStoreFixture;
import io.onlyonce.redis.RedisStores;
import io.onlyonce.testing.PrivateRedis;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The contract suites' fixture on one client through its Spring Data factory: a key prefix of its
 * own, stores over the client's factory to the test server, stores over another factory of the same
 * client (another application instance), and stores on a private server that the test kills, with a
 * short budget. On the Cluster topology the killed server is a standalone one reached through a
 * standalone factory of the same client: what a store call does when its server is gone is the same.
 */
final class ContractFixture implements RedisStoreFixture {

    /** The budget of a store on a killed server: short, so the suite's dead-server tests are quick. */
    private static final Duration DEAD_BUDGET = Duration.ofMillis(500);

    /** Where the shared stores run. */
    enum Topology { STANDALONE, CLUSTER }

    private final Client client;
    private final Topology topology;
    private final RedisStoreConfig config = new RedisStoreConfig(TestServer.randomPrefix(), 1024);
    private final OnFactory shared;
    private @Nullable OnFactory second;
    private @Nullable PrivateRedis deadServer;
    private @Nullable OnFactory dead;

    ContractFixture(Client client) {
        this(client, Topology.STANDALONE);
    }

    ContractFixture(Client client, Topology topology) {
        this.client = client;
        this.topology = topology;
        this.shared = new OnFactory(connectToTest());
    }

    private Client.Factory connectToTest() {
        return topology == Topology.CLUSTER ? client.connectToTestCluster() : client.connectToTestServer();
    }

    @Override
    public RedisStoreConfig config() {
        return config;
    }

    @Override
    public RedisStoreConfig deadConfig() {
        return config.withCommandTimeout(DEAD_BUDGET);
    }

    @Override
    public RedisStores stores() {
        return shared.stores();
    }

    @Override
    public RedisStores secondStores() {
        if (second == null) {
            second = new OnFactory(connectToTest());
        }
        return second.stores();
    }

    @Override
    public <S> S storeOnKilledServer(Function<RedisStores, S> storeOn, Consumer<S> proveAlive) throws Exception {
        deadServer = PrivateRedis.start();
        dead = new OnFactory(client.connect("127.0.0.1", deadServer.port(), Duration.ofSeconds(3)));
        S store = storeOn.apply(dead.stores());
        proveAlive.accept(store);
        deadServer.close();
        return store;
    }

    @Override
    public void closeKilledServer() throws Exception {
        if (dead != null) {
            dead.close();
            dead = null;
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
            if (topology == Topology.CLUSTER) {
                TestServer.deleteClusterKeys(config.keyPrefix());
            } else {
                TestServer.deleteKeys(config.keyPrefix());
            }
        } finally {
            shared.close();
            if (second != null) {
                second.close();
            }
        }
    }

    /** A store connection over a client's factory, closed with it. */
    private record OnFactory(Client.Factory factory, RedisStoreConnection connection) implements AutoCloseable {

        OnFactory(Client.Factory factory) {
            this(factory, SpringDataRedisStoreConnection.of(factory.factory()));
        }

        RedisStores stores() {
            return RedisStores.on(connection);
        }

        @Override
        public void close() {
            connection.close();
            factory.close();
        }
    }
}
