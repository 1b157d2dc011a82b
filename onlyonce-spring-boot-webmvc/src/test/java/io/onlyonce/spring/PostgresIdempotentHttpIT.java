package io.onlyonce.spring;

import io.onlyonce.fixtures.Postgres;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.Closeable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The HTTP suite on PostgreSQL at 127.0.0.1:5432, in a database of its own that is created with
 * the schema at start-up and dropped afterwards.
 */
@DirtiesContext
public class PostgresIdempotentHttpIT extends AbstractIdempotentHttpTest {

    public static final String SERVER = Postgres.SERVER;
    static final String DATABASE = "oo_http_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    static volatile DataSource pool;

    @Autowired
    DataSource dataSource;

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry registry) throws SQLException {
        admin("CREATE DATABASE " + DATABASE);
        registry.add("onlyonce.store", () -> "jdbc");
        registry.add("onlyonce.jdbc.initialize-schema", () -> "always");
        // the message layer is on this module's classpath, but this suite does not use it (nor has its tables)
        registry.add("onlyonce.messaging.enabled", () -> "false");
        registry.add("spring.datasource.url", () -> SERVER + DATABASE);
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "");
        registry.add("spring.datasource.hikari.maximum-pool-size", () -> 20);
    }

    public static void admin(String sql) throws SQLException {
        Postgres.admin(sql);
    }

    @BeforeEach
    void rememberPool() {
        pool = dataSource;
    }

    @AfterAll
    static void dropDatabase() throws Exception {
        if (pool instanceof Closeable closeable) {
            closeable.close();
        }
        admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
    }

    @Test
    void recordsAreRowsOfTheIdempotencyTable() {
        assertThat(store).isInstanceOf(io.onlyonce.spring.autoconfigure.TransactionAwareJdbcIdempotencyStore.class);
        String key = newKey();
        assertThat(order("alice", key, ORDER).statusCode()).isEqualTo(201);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        assertThat(jdbc.queryForObject("SELECT status FROM onlyonce_idempotency WHERE scope = ? AND idem_key = ?",
                String.class, "POST /orders alice", key)).isEqualTo("C");
        assertThat(jdbc.queryForObject("SELECT response_status FROM onlyonce_idempotency WHERE scope = ? AND idem_key = ?",
                Integer.class, "POST /orders alice", key)).isEqualTo(201);
        submit("/seckill", "alice", token("alice", "seckill"));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM onlyonce_token WHERE status = 'CONSUMED'", Integer.class))
                .isPositive();
    }
}
