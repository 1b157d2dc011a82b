package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.Redis;
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

    static final String DATABASE = ExternalDatabases.newName();
    static final String PREFIX = Redis.newPrefix();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestSecrets.register(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
        Redis.useShared(registry, PREFIX);
        // the synchronous flash-sale path on the Redis stores (the FastPath* tests take the fast path)
        registry.add("seckill.fast-path.enabled", () -> "false");
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropPostgres(DATABASE);
        Redis.deleteKeys(PREFIX);
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
