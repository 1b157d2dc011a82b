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
        shortWindow(registry);
        String url = ExternalDatabases.createMysql(DATABASE);
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", ExternalDatabases::mysqlUser);
        registry.add("spring.datasource.password", ExternalDatabases::mysqlPassword);
        registry.add("onlyonce.redis.key-prefix", () -> PREFIX);
        registry.add("spring.data.redis.host", Redis::sharedHost);
        registry.add("spring.data.redis.port", Redis::sharedPort);
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropMysql(DATABASE);
        Redis.deleteKeys(PREFIX);
    }
}
