package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The scenarios on MariaDB (a database of this class alone) with the JDBC stores in the same database. */
@ActiveProfiles({"mysql"})
class MariaDbJdbcStoreSeckillIT extends AbstractSeckillScenarios {

    static final String DATABASE = ExternalDatabases.newName();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        behindTheLimits(registry);
        ExternalDatabases.useMysql(registry, DATABASE);
        registry.add("onlyonce.store", () -> "jdbc");
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropMysql(DATABASE);

    }
}
