package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.StoreUnavailableException;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JdbcDialectTest {

    @ParameterizedTest
    @CsvSource({"PostgreSQL, POSTGRESQL", "MySQL, MYSQL", "MariaDB, MYSQL", "H2, H2", "postgresql, POSTGRESQL", "mariadb, MYSQL"})
    void productNamesMapToDialects(String productName, JdbcDialect expected) {
        assertThat(JdbcDialect.fromProductName(productName)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Oracle", "Microsoft SQL Server", "HSQL Database Engine", "SQLite", ""})
    void otherDatabasesAreRefused(String productName) {
        assertThatThrownBy(() -> JdbcDialect.fromProductName(productName)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void detectReadsTheConnectionMetadata() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:dialect_" + UUID.randomUUID());
        assertThat(JdbcDialect.detect(h2)).isEqualTo(JdbcDialect.H2);
    }

    @Test
    void detectWithoutADatabaseIsStoreUnavailable() {
        JdbcDataSource dead = new JdbcDataSource();
        dead.setURL("jdbc:h2:tcp://127.0.0.1:1/mem:nothing");
        assertThatThrownBy(() -> JdbcDialect.detect(dead)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void schemaLocationsAreFlywayFolders() {
        assertThat(JdbcDialect.POSTGRESQL.schemaLocation()).isEqualTo("db/onlyonce/postgresql");
        assertThat(JdbcDialect.MYSQL.schemaLocation()).isEqualTo("db/onlyonce/mysql");
        assertThat(JdbcDialect.H2.schemaLocation()).isEqualTo("db/onlyonce/h2");
    }
}
