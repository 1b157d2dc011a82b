package io.onlyonce.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import java.time.Duration;
import java.util.UUID;

/**
 * Where the test servers are and how test clients connect. Override the servers with the system
 * property or environment variable {@code ONLYONCE_REDIS_URI} (default
 * {@code redis://127.0.0.1:6379}) and {@code ONLYONCE_REDIS_CLUSTER_URI} (default
 * {@code redis://127.0.0.1:7101}, any node of the cluster).
 */
final class RedisTestSettings {

    /** Command and connect timeout of every test client: a dead server fails a test in seconds. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    private RedisTestSettings() {
    }

    static RedisURI standaloneUri() {
        return uri("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379");
    }

    static RedisURI clusterUri() {
        return uri("ONLYONCE_REDIS_CLUSTER_URI", "redis://127.0.0.1:7101");
    }

    /** A key prefix of its own for one test class, such as {@code oo-test-1a2b3c4d:}. */
    static String randomPrefix() {
        return "oo-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /**
     * Commands fail at once while disconnected, and time out after {@link #TIMEOUT}.
     *
     * @param autoReconnect {@code false} for a server the test kills, so the client does not retry
     */
    static ClientOptions clientOptions(boolean autoReconnect) {
        return ClientOptions.builder()
                .autoReconnect(autoReconnect)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
                .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                .build();
    }

    /** {@link #clientOptions(boolean)} for a Cluster client. */
    static ClusterClientOptions clusterClientOptions(boolean autoReconnect) {
        return ClusterClientOptions.builder()
                .autoReconnect(autoReconnect)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
                .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                .build();
    }

    private static RedisURI uri(String name, String fallback) {
        String value = System.getProperty(name, System.getenv(name));
        RedisURI uri = RedisURI.create(value == null || value.isBlank() ? fallback : value);
        uri.setTimeout(TIMEOUT);
        return uri;
    }
}
