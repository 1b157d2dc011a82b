package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.PostgresAndRedis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The safety rules on PostgreSQL (a database of this class alone) with the Redis stores (shared
 * server, a key prefix of its own): outside demo mode, with real secrets. The rates are counted in
 * Redis, so they hold for every instance sharing it.
 */
@ActiveProfiles({"postgres", "redis"})
class PostgresRedisSafetyIT extends AbstractSafetyScenarios {

    static final PostgresAndRedis SERVERS = PostgresAndRedis.fresh();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        SERVERS.register(registry);
        // the synchronous flash-sale path on the Redis stores (the FastPath* tests take the fast path)
        registry.add("seckill.fast-path.enabled", () -> "false");
    }

    @AfterAll
    static void dropDatabase() {
        SERVERS.drop();
    }

    @Override
    protected List<String> nonDemoStart() {
        // PostgreSQL and Redis with the published demo secrets (no database is touched: start-up stops before)
        return List.of("--spring.profiles.active=postgres,redis");
    }

    @Override
    protected Map<String, String> demoScriptEnvironment() {
        return Map.of("SECKILL_PAYMENT_SECRET", TestSecrets.PAYMENT);
    }
}
