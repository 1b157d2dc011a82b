package io.onlyonce.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One client and one connection to a shared test server for a whole test class, and the removal
 * of every key under the class's prefix when it is done.
 */
final class SharedRedis {

    private SharedRedis() {
    }

    /** The standalone test server. */
    static final class Standalone implements AutoCloseable {

        private final RedisClient client;
        private final StatefulRedisConnection<byte[], byte[]> connection;
        private final String keyPrefix;

        Standalone(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            this.client = RedisClient.create(RedisTestSettings.standaloneUri());
            client.setOptions(RedisTestSettings.clientOptions(true));
            this.connection = client.connect(ByteArrayCodec.INSTANCE);
        }

        StatefulRedisConnection<byte[], byte[]> connection() {
            return connection;
        }

        RedisCommands<byte[], byte[]> commands() {
            return connection.sync();
        }

        /** Deletes the keys under the prefix, then closes connection and client. */
        @Override
        public void close() {
            try {
                deleteKeys(connection.sync(), keyPrefix);
            } finally {
                connection.close();
                client.shutdown(Duration.ZERO, RedisTestSettings.TIMEOUT);
            }
        }
    }

    /**
     * The standalone test server for one test class, as a JUnit extension (a static
     * {@code @RegisterExtension} field): connected before the class's first test, its keys under a
     * prefix of its own deleted after the last.
     */
    static final class OnStandalone implements BeforeAllCallback, AfterAllCallback {

        private final String keyPrefix = RedisTestSettings.randomPrefix();
        private @Nullable Standalone server;

        @Override
        public void beforeAll(ExtensionContext context) {
            server = new Standalone(keyPrefix);
        }

        @Override
        public void afterAll(ExtensionContext context) {
            server().close();
        }

        /** The class's own key prefix, such as {@code oo-test-1a2b3c4d:}. */
        String prefix() {
            return keyPrefix;
        }

        StatefulRedisConnection<byte[], byte[]> connection() {
            return server().connection();
        }

        RedisCommands<byte[], byte[]> commands() {
            return server().commands();
        }

        private Standalone server() {
            return Objects.requireNonNull(server, "not connected before the class's tests");
        }
    }

    /** The test Cluster. */
    static final class Cluster implements AutoCloseable {

        private final RedisClusterClient client;
        private final StatefulRedisClusterConnection<byte[], byte[]> connection;
        private final String keyPrefix;

        Cluster(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            this.client = RedisClusterClient.create(RedisTestSettings.clusterUri());
            client.setOptions(RedisTestSettings.clusterClientOptions(true));
            this.connection = client.connect(ByteArrayCodec.INSTANCE);
        }

        StatefulRedisClusterConnection<byte[], byte[]> connection() {
            return connection;
        }

        /** Deletes the keys under the prefix on every master, then closes connection and client. */
        @Override
        public void close() {
            try {
                for (RedisClusterNode node : connection.getPartitions()) {
                    if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                        deleteKeys(connection.getConnection(node.getNodeId()).sync(), keyPrefix);
                    }
                }
            } finally {
                connection.close();
                client.shutdown(Duration.ZERO, RedisTestSettings.TIMEOUT);
            }
        }
    }

    /** SCAN MATCH prefix* and UNLINK on one server, one key at a time (keys of a Cluster node span slots). */
    private static void deleteKeys(RedisClusterCommands<byte[], byte[]> commands, String keyPrefix) {
        ScanIterator<byte[]> keys = ScanIterator.scan(commands, ScanArgs.Builder.matches(keyPrefix + "*").limit(1000));
        while (keys.hasNext()) {
            commands.unlink(keys.next());
        }
    }
}
