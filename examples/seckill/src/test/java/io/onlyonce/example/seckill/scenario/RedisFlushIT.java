package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.Redis;
import org.junit.jupiter.api.AfterAll;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The store flush with the Redis stores: FLUSHALL on a redis-server this class starts for itself
 * on a free port (never on the shared server), in the middle of the run.
 */
// one user with 100 unpaid orders: past the abuse limits, which AbstractSafetyScenarios tests
@TestPropertySource(properties = {"onlyonce.store=redis", "spring.datasource.url=jdbc:h2:mem:seckill-redis-flush;DB_CLOSE_DELAY=-1",
    "seckill.limits.enabled=false"})
class RedisFlushIT extends AbstractStoreFlushScenario {

    private static Redis.Private redis;

    @Autowired
    RedisConnectionFactory connections;

    @DynamicPropertySource
    static void privateRedis(DynamicPropertyRegistry registry) {
        redis = Redis.Private.start();
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", redis::port);
    }

    @AfterAll
    static void stopRedis() throws InterruptedException {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected void flushIdempotencyStore() {
        try (var connection = connections.getConnection()) {
            connection.serverCommands().flushAll();
        }
    }
}
