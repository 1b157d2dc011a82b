package io.onlyonce.redis.springdata;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.UUID;

/**
 * The shared standalone test server ({@code ONLYONCE_REDIS_HOST}, {@code ONLYONCE_REDIS_PORT}: system
 * property or environment variable, 127.0.0.1:6379 by default), a key prefix per test class, and the
 * removal of that prefix's keys.
 */
final class TestServer {

    private TestServer() {
    }

    static String host() {
        return setting("ONLYONCE_REDIS_HOST", "127.0.0.1");
    }

    static int port() {
        return Integer.parseInt(setting("ONLYONCE_REDIS_PORT", "6379"));
    }

    /** One node of the test Cluster, {@code host:port} ({@code ONLYONCE_REDIS_CLUSTER_NODE}, 127.0.0.1:7101 by default). */
    static String clusterNode() {
        return setting("ONLYONCE_REDIS_CLUSTER_NODE", "127.0.0.1:7101");
    }

    /** A key prefix of its own for one test class, such as {@code oo-test-sd-1a2b3c4d:}. */
    static String randomPrefix() {
        return "oo-test-sd-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** A plain Lettuce connection to the test server, to look at keys behind the stores' back. */
    static RedisClient lettuceClient() {
        return RedisClient.create(RedisURI.builder().withHost(host()).withPort(port()).withTimeout(Duration.ofSeconds(3)).build());
    }

    /** Deletes every key under {@code prefix} on the test server. */
    static void deleteKeys(String prefix) {
        RedisClient client = lettuceClient();
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            deleteKeys(connection.sync(), prefix);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(3));
        }
    }

    /** Deletes every key under {@code prefix} on every master of the test Cluster. */
    static void deleteClusterKeys(String prefix) {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.create("redis://" + clusterNode()));
        try (StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            for (RedisClusterNode node : connection.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    deleteKeys(connection.getConnection(node.getNodeId()).sync(), prefix);
                }
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(3));
        }
    }

    /** SCAN MATCH prefix* and UNLINK on one server, one key at a time (keys of a Cluster node span slots). */
    private static void deleteKeys(RedisClusterCommands<byte[], byte[]> commands, String prefix) {
        ScanIterator<byte[]> keys = ScanIterator.scan(commands, ScanArgs.Builder.matches(prefix + "*").limit(1000));
        while (keys.hasNext()) {
            commands.unlink(keys.next());
        }
    }

    private static String setting(String name, String fallback) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? fallback : value;
    }
}
