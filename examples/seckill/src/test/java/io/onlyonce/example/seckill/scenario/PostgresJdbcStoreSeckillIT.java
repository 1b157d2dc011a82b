package io.onlyonce.example.seckill.scenario;

import io.onlyonce.example.seckill.support.ExternalDatabases;
import org.junit.jupiter.api.AfterAll;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The scenarios on PostgreSQL (a database of this class alone) with the JDBC stores in the same database. */
@ActiveProfiles({"postgres"})
class PostgresJdbcStoreSeckillIT extends AbstractSeckillScenarios {

    static final String DATABASE = ExternalDatabases.newName();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        behindTheLimits(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
        registry.add("onlyonce.store", () -> "jdbc");
    }

    @AfterAll
    static void dropDatabase() {
        ExternalDatabases.dropPostgres(DATABASE);
    }
}
