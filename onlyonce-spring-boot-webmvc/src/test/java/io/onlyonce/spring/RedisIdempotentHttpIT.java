package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.onlyonce.redis.RedisIdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The HTTP suite on the shared Redis at 127.0.0.1:6379, under a key prefix of its own that is deleted afterwards. */
@DirtiesContext
class RedisIdempotentHttpIT extends AbstractIdempotentHttpTest {

    static final String PREFIX = "oo-http-it-" + UUID.randomUUID().toString().substring(0, 8) + ":";

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        sharedRedis(registry, PREFIX);
    }

    /** The shared Redis under {@code prefix}, with budgets for HTTP semantics rather than outages. */
    static void sharedRedis(DynamicPropertyRegistry registry, String prefix) {
        registry.add("onlyonce.store", () -> "redis");
        registry.add("onlyonce.redis.key-prefix", () -> prefix);
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> 6379);
        // HTTP semantics, not outages: a budget (and a slow-call threshold) that a loaded build
        // machine's concurrency tests do not exceed; the budget itself is tested by RedisOutageDefaultSettings*IT
        registry.add("onlyonce.redis.command-timeout", () -> "30s");
        registry.add("onlyonce.circuit-breaker.slow-call-duration-threshold", () -> "30s");
    }

    static List<String> keys() {
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            List<String> keys = new ArrayList<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(PREFIX + "*").limit(1000));
                keys.addAll(page.getKeys());
                cursor = page;
            } while (!cursor.isFinished());
            return keys;
        } finally {
            client.shutdown();
        }
    }

    @AfterAll
    static void deleteKeys() {
        List<String> keys = keys();
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            for (int i = 0; i < keys.size(); i += 500) {
                connection.sync().del(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(String[]::new));
            }
        } finally {
            client.shutdown();
        }
        assertThat(keys()).isEmpty();
    }

    @Test
    void recordsAndTokensLiveInRedisUnderTheConfiguredPrefix() {
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        assertThat(order("alice", newKey(), ORDER).statusCode()).isEqualTo(201);
        submit("/seckill", "alice", token("alice", "seckill"));
        assertThat(keys()).isNotEmpty().allSatisfy(key -> assertThat(key).startsWith(PREFIX));
    }
}
