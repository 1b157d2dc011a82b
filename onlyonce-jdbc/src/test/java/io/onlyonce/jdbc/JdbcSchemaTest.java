package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class JdbcSchemaTest {

    private static final JdbcStoreConfig CUSTOM = new JdbcStoreConfig("app_idem", "app_tokens", "app_windows");

    @ParameterizedTest
    @EnumSource(JdbcDialect.class)
    void everyDatabaseHasAFlywayVersionOneScript(JdbcDialect dialect) {
        String location = JdbcSchema.scriptLocation(dialect);
        assertThat(location).isEqualTo("db/onlyonce/" + dialect.name().toLowerCase(Locale.ROOT) + "/V1__onlyonce_schema.sql")
                .startsWith(dialect.schemaLocation() + "/")
                .endsWith("/" + JdbcSchema.SCRIPT_NAME);
        assertThat(JdbcSchema.SCRIPT_NAME).matches("V[0-9]+__[A-Za-z0-9_]+\\.sql");
        assertThat(getClass().getClassLoader().getResource(location)).as(location).isNotNull();
    }

    @ParameterizedTest
    @EnumSource(JdbcDialect.class)
    void everyStatementCreatesOnlyWhatIsMissing(JdbcDialect dialect) {
        List<String> statements = JdbcSchema.statements(dialect, JdbcStoreConfig.defaults());
        assertThat(statements).hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(sql -> assertThat(sql).matches("(?s)CREATE (TABLE|INDEX) IF NOT EXISTS .*"))
                .noneSatisfy(sql -> assertThat(sql).contains("--"));
        assertThat(String.join("\n", statements))
                .contains("onlyonce_idempotency", "onlyonce_token", "onlyonce_window", "expires_at_ms", "window_end_ms", "hit_count");
    }

    @ParameterizedTest
    @EnumSource(JdbcDialect.class)
    void customTableNamesRenameTheTablesAndTheirIndexes(JdbcDialect dialect) {
        String script = String.join("\n", JdbcSchema.statements(dialect, CUSTOM));
        assertThat(script).doesNotContain("onlyonce_")
                .contains("CREATE TABLE IF NOT EXISTS app_idem (", "CREATE TABLE IF NOT EXISTS app_tokens (",
                        "CREATE TABLE IF NOT EXISTS app_windows (");
        if (dialect != JdbcDialect.MYSQL) {
            assertThat(script).contains("app_idem_expires_idx ON app_idem", "app_tokens_expires_idx ON app_tokens",
                    "app_windows_end_idx ON app_windows");
        }
    }

    @Test
    void storesRunOnTablesWithCustomNamesAndApplyingTwiceChangesNothing() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:schema_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try {
            JdbcSchema.apply(h2, JdbcDialect.H2, CUSTOM);
            StoreSmoke.storesWork(h2, JdbcDialect.H2, CUSTOM);
            JdbcSchema.apply(h2, JdbcDialect.H2, CUSTOM);
            assertThat(new JdbcIdempotencyStore(h2, JdbcDialect.H2, CUSTOM)
                    .find(new IdempotencyKey("smoke", "key-1"))).isPresent();
        } finally {
            try (Connection last = h2.getConnection(); Statement statement = last.createStatement()) {
                statement.execute("SHUTDOWN");
            }
        }
    }

    @Test
    void applyOnAnUnreachableDatabaseIsStoreUnavailable() {
        JdbcDataSource dead = new JdbcDataSource();
        dead.setURL("jdbc:h2:tcp://127.0.0.1:1/mem:nothing");
        assertThatThrownBy(() -> JdbcSchema.apply(dead, JdbcDialect.H2)).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("schema creation");
    }
}
