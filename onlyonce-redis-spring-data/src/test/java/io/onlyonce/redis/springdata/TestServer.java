package io.onlyonce.redis.springdata;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
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

    /** A key prefix of its own for one test class, such as {@code oo-test-sd-1a2b3c4d:}. */
    static String randomPrefix() {
        return "oo-test-sd-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** A plain Lettuce connection to the test server, to look at keys behind the stores' back. */
    static RedisClient lettuceClient() {
        return RedisClient.create(RedisURI.builder().withHost(host()).withPort(port()).withTimeout(Duration.ofSeconds(3)).build());
    }

    /** Deletes every key under {@code prefix}. */
    static void deleteKeys(String prefix) {
        RedisClient client = lettuceClient();
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            ScanIterator<byte[]> keys = ScanIterator.scan(connection.sync(), ScanArgs.Builder.matches(prefix + "*").limit(1000));
            while (keys.hasNext()) {
                connection.sync().unlink(keys.next());
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(3));
        }
    }

    private static String setting(String name, String fallback) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? fallback : value;
    }
}
