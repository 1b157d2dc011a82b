package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The start-up check of OnlyOnce's tables on H2, and on a database that does not answer. */
@ExtendWith(OutputCaptureExtension.class)
class SchemaCheckTest {

    private final SchemaCheck check = new SchemaCheck("the test component", List.of("oo_present", "oo_absent"),
            "db/test/h2", "V1__test.sql", "test.initialize-schema");

    @Test
    void aMissingTableIsNamedWithBothWaysToCreateIt() {
        for (String database : List.of("empty", "with-a-table")) {
            DriverManagerDataSource h2 = new DriverManagerDataSource(
                    "jdbc:h2:mem:oo-schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            if (database.equals("with-a-table")) {
                new JdbcTemplate(h2).execute("CREATE TABLE oo_present (id INT)");
            }
            String missing = database.equals("empty") ? "The tables oo_present, oo_absent" : "The table oo_absent";
            assertThatThrownBy(() -> check.verify(h2, JdbcDialect.H2))
                    .isInstanceOf(OnlyOnceConfigurationException.class)
                    .hasMessageStartingWith(missing + " of the test component")
                    .hasMessageContaining("application's H2 database")
                    .hasMessageContaining("classpath:db/test/h2")
                    .hasMessageContaining("test.initialize-schema=always");
        }
    }

    @Test
    void presentTablesPass() {
        DriverManagerDataSource h2 = new DriverManagerDataSource("jdbc:h2:mem:oo-schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        new JdbcTemplate(h2).execute("CREATE TABLE oo_present (id INT); CREATE TABLE oo_absent (id INT)");
        check.verify(h2, JdbcDialect.H2);
        assertThat(new JdbcTemplate(h2).queryForObject("SELECT count(*) FROM oo_absent", Integer.class)).isZero();
    }

    @Test
    void aColumnAddedByALaterScriptIsNamedWithTheScriptOnH2AndPostgres() {
        DriverManagerDataSource h2 = new DriverManagerDataSource("jdbc:h2:mem:oo-schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        DriverManagerDataSource postgres = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
        String table = "oo_schema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        for (var database : List.of(java.util.Map.entry(h2, JdbcDialect.H2), java.util.Map.entry(postgres, JdbcDialect.POSTGRESQL))) {
            JdbcTemplate jdbc = new JdbcTemplate(database.getKey());
            jdbc.execute("CREATE TABLE " + table + " (id INT)");
            try {
                assertThatThrownBy(() -> check.verifyColumn(database.getKey(), database.getValue(), table, "lease_until_ms",
                        "V2__test.sql"))
                        .isInstanceOf(OnlyOnceConfigurationException.class)
                        .hasMessageStartingWith("The column " + table + ".lease_until_ms of the test component does not exist")
                        .hasMessageContaining("db/test/h2/V2__test.sql")
                        .hasMessageContaining("test.initialize-schema=always");
                jdbc.execute("ALTER TABLE " + table + " ADD COLUMN lease_until_ms BIGINT");
                check.verifyColumn(database.getKey(), database.getValue(), table, "lease_until_ms", "V2__test.sql");
            } finally {
                jdbc.execute("DROP TABLE " + table);
            }
        }
    }

    @Test
    void aDatabaseThatDoesNotAnswerIsOnlyLogged(CapturedOutput output) {
        DriverManagerDataSource down = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2");
        check.verify(down, JdbcDialect.POSTGRESQL);
        assertThat(output).containsOnlyOnce("the test component could not check that its tables [oo_present, oo_absent]"
                + " exist: the database did not answer at start-up");
    }
}
