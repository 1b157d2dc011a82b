package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.ClaimResult;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What a Redis contract test class needs, on either topology: a key prefix of its own, a shared
 * connection to the test server (its keys deleted at the end), a second client of the same server
 * and prefix (another application instance), and stores on a private server that the test kills.
 *
 * <p>On the Cluster topology the dead server is a one-node Cluster of the test's own, not a node of
 * the shared Cluster: killing a shared node would break every other test, and a plain server cannot
 * take a Cluster connection, so only a private Cluster node lets a {@code cluster(...)} store prove
 * that it fails loudly when its server dies.
 */
final class RedisFixture implements AutoCloseable {

    /** Where the stores run. */
    enum Topology { STANDALONE, CLUSTER }

    private final Topology topology;
    private final RedisStoreConfig config = new RedisStoreConfig(RedisTestSettings.randomPrefix(), 1024);
    private final AutoCloseable shared;
    private final StatefulConnection<byte[], byte[]> connection;
    private @Nullable PrivateRedisServer deadServer;
    private @Nullable AutoCloseable second;
    private @Nullable StatefulConnection<byte[], byte[]> secondConnection;

    RedisFixture(Topology topology) {
        this.topology = topology;
        if (topology == Topology.CLUSTER) {
            SharedRedis.Cluster cluster = new SharedRedis.Cluster(config.keyPrefix());
            this.shared = cluster;
            this.connection = cluster.connection();
        } else {
            SharedRedis.Standalone standalone = new SharedRedis.Standalone(config.keyPrefix());
            this.shared = standalone;
            this.connection = standalone.connection();
        }
    }

    RedisStoreConfig config() {
        return config;
    }

    /** Plain commands on the shared connection, to look at and move keys behind the stores' back. */
    RedisClusterCommands<byte[], byte[]> commands() {
        if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            return cluster.sync();
        }
        return ((StatefulRedisConnection<byte[], byte[]>) connection).sync();
    }

    /** The shared connection to the test server. */
    StatefulConnection<byte[], byte[]> connection() {
        return connection;
    }

    /**
     * A connection of another client to the same test server, as a second application instance
     * has: its own Lettuce client and TCP connection. Made on first use, closed with the fixture.
     */
    StatefulConnection<byte[], byte[]> secondConnection() {
        if (secondConnection == null) {
            if (topology == Topology.CLUSTER) {
                SharedRedis.Cluster cluster = new SharedRedis.Cluster(config.keyPrefix());
                second = cluster;
                secondConnection = cluster.connection();
            } else {
                SharedRedis.Standalone standalone = new SharedRedis.Standalone(config.keyPrefix());
                second = standalone;
                secondConnection = standalone.connection();
            }
        }
        return secondConnection;
    }

    /**
     * A store on a private server of this topology: built, proven to work by {@code proveAlive},
     * then left with its server killed.
     */
    <S> S storeOnKilledServer(Function<StatefulConnection<byte[], byte[]>, S> storeOn, Consumer<S> proveAlive)
            throws Exception {
        PrivateRedisServer server = topology == Topology.CLUSTER
                ? PrivateRedisServer.startClusterNode()
                : PrivateRedisServer.start();
        deadServer = server;
        S store = storeOn.apply(topology == Topology.CLUSTER ? server.connectCluster() : server.connect());
        proveAlive.accept(store);
        server.kill();
        return store;
    }

    /** An idempotency store on {@link #connection()}. */
    RedisIdempotencyStore idempotencyStore() {
        return RedisIdempotencyStore.of(connection(), config());
    }

    /** An idempotency store on {@link #secondConnection()}. */
    RedisIdempotencyStore secondIdempotencyStore() {
        return RedisIdempotencyStore.of(secondConnection(), config());
    }

    /** An idempotency store that claimed a key, then lost its server. */
    RedisIdempotencyStore idempotencyStoreOnKilledServer() throws Exception {
        return storeOnKilledServer(connection -> RedisIdempotencyStore.of(connection, config()),
                store -> assertThat(store.claim(new IdempotencyKey("s", "alive"), Fingerprint.of("a"), Duration.ofSeconds(30)))
                        .isInstanceOf(ClaimResult.Claimed.class));
    }

    /** Removes the private server of the last {@link #storeOnKilledServer} call. */
    void closeKilledServer() throws Exception {
        if (deadServer != null) {
            deadServer.close();
            deadServer = null;
        }
    }

    /** Deletes the keys under the prefix and disconnects. */
    @Override
    public void close() throws Exception {
        closeKilledServer();
        if (second != null) {
            second.close();
        }
        shared.close();
    }
}
