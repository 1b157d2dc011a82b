package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.Redis;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The scenarios on MariaDB (a database of this class alone) with the Redis stores (shared server, a key prefix of its own). */
@ActiveProfiles({"mysql", "redis"})
class MariaDbRedisStoreSeckillIT extends AbstractSeckillScenarios {

    static final String DATABASE = ExternalDatabases.newName();
    static final String PREFIX = Redis.newPrefix();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        behindTheLimits(registry);
        ExternalDatabases.useMysql(registry, DATABASE);
        Redis.useShared(registry, PREFIX);
        // the synchronous flash-sale path on the Redis stores (the FastPath* tests take the fast path)
        registry.add("seckill.fast-path.enabled", () -> "false");
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropMysql(DATABASE);
        Redis.deleteKeys(PREFIX);
    }
}
