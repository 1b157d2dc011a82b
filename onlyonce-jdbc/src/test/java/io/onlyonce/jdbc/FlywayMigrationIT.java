package io.onlyonce.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shipped PostgreSQL and MySQL scripts, run by Flyway into empty databases. */
class FlywayMigrationIT {

    @RegisterExtension
    static final ScratchDatabase POSTGRES = ScratchDatabase.postgres().withoutSchema();

    @RegisterExtension
    static final ScratchDatabase MARIADB = ScratchDatabase.mariaDb().withoutSchema();

    @Test
    void flywayCreatesThePostgresTables() {
        FlywayMigrationTest.FlywayMigrations.migrateAndUse(POSTGRES);
    }

    @Test
    void flywayCreatesTheMariaDbTables() {
        FlywayMigrationTest.FlywayMigrations.migrateAndUse(MARIADB);
    }
}
