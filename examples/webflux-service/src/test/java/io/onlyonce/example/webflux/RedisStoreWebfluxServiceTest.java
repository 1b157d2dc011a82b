package io.onlyonce.example.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The service on the Redis at localhost:6379, under a key prefix of its own run. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisStoreWebfluxServiceTest extends AbstractWebfluxServiceTest {

    private static final String PREFIX = "test-webflux-service-" + UUID.randomUUID() + ":";

    @Autowired
    StringRedisTemplate redis;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("onlyonce.store", () -> "redis");
        registry.add("onlyonce.redis.key-prefix", () -> PREFIX);
        registry.add("spring.data.redis.host", () -> "localhost");
        registry.add("spring.data.redis.port", () -> "6379");
    }

    @Override
    void assertStored(String scope, String key) {
        Set<String> keys = redis.keys(PREFIX + "*");
        assertThat(keys).anySatisfy(k -> assertThat(k).contains(key).contains(scope.substring(scope.lastIndexOf(' ') + 1)));
    }

    @AfterAll
    void deleteKeys() {
        Set<String> keys = redis.keys(PREFIX + "*");
        if (keys != null && !keys.isEmpty()) {
            redis.delete(keys);
        }
    }
}
