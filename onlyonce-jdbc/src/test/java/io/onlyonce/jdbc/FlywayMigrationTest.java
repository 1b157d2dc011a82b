package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shipped H2 script, run by Flyway into an empty database. */
class FlywayMigrationTest {

    @RegisterExtension
    static final ScratchDatabase H2 = ScratchDatabase.h2().withoutSchema();

    @Test
    void flywayCreatesTheTablesTheStoresUse() {
        FlywayMigrations.migrateAndUse(H2);
    }

    /** Runs the shipped script of a scratch database's dialect with Flyway, twice, then uses the stores. */
    static final class FlywayMigrations {

        private FlywayMigrations() {
        }

        static void migrateAndUse(ScratchDatabase database) {
            Flyway flyway = Flyway.configure()
                    .dataSource(database.dataSource())
                    .locations("classpath:" + database.dialect().schemaLocation())
                    .table("onlyonce_schema_history")
                    .load();
            assertThat(flyway.migrate().migrationsExecuted).isEqualTo(1);
            assertThat(flyway.migrate().migrationsExecuted).isZero();
            StoreSmoke.storesWork(database.dataSource(), database.dialect(), JdbcStoreConfig.defaults());
        }
    }
}
