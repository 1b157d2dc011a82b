package io.onlyonce.messaging.kafka;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.MessageHandler;
import io.onlyonce.messaging.MessagingSchema;
import io.onlyonce.messaging.OutboxMessage;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A throwaway PostgreSQL database for one test class ({@code oo_kafka_<random>}, dropped by
 * {@link #close}) with the message layer's schema and an effects table: one row per business id
 * and a count, so that an effect applied twice shows as a count of 2. Server at
 * {@code ONLYONCE_PG_URL} (default {@value #DEFAULT_PG_URL}).
 */
final class PgDatabase implements AutoCloseable {

    static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    static final String ADMIN_URL = setting("ONLYONCE_PG_URL", DEFAULT_PG_URL);

    /** Short in-process backoff: the tests do not wait for production pauses. */
    static final ConsumerConfig CONFIG = ConsumerConfig.custom()
            .maxAttempts(3)
            .initialBackoff(Duration.ofMillis(1))
            .maxBackoff(Duration.ofMillis(5))
            .build();

    final String name;
    final String url;
    final HikariDataSource pool;

    private PgDatabase(String name, String url, HikariDataSource pool) {
        this.name = name;
        this.url = url;
        this.pool = pool;
    }

    static PgDatabase create() throws SQLException {
        String name = "oo_kafka_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        execute(ADMIN_URL, "CREATE DATABASE " + name);
        String url = urlOf(name);
        PgDatabase database = new PgDatabase(name, url, pool(url, 16));
        MessagingSchema.apply(database.pool, JdbcDialect.POSTGRESQL);
        database.update("CREATE TABLE effects (business_id VARCHAR(255) PRIMARY KEY, count INTEGER NOT NULL)");
        return database;
    }

    /** The JDBC URL of database {@code name} on the server of {@link #ADMIN_URL}. */
    static String urlOf(String name) {
        int slash = ADMIN_URL.indexOf('/', "jdbc:postgresql://".length());
        int query = ADMIN_URL.indexOf('?', slash);
        return ADMIN_URL.substring(0, slash + 1) + name + (query < 0 ? "" : ADMIN_URL.substring(query));
    }

    static HikariDataSource pool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    /** The handler that counts one effect for the message's business id (its payload). */
    static MessageHandler countEffect() {
        return (message, connection) -> {
            try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO effects (business_id, count) "
                    + "VALUES (?, 1) ON CONFLICT (business_id) DO UPDATE SET count = effects.count + 1")) {
                upsert.setString(1, message.payload());
                upsert.executeUpdate();
            }
        };
    }

    IdempotentConsumer consumer(String name) {
        return new IdempotentConsumer(name, pool, JdbcDialect.POSTGRESQL, countEffect(), CONFIG);
    }

    /** Records the messages in the outbox, in one transaction. */
    void record(List<OutboxMessage> messages) throws SQLException {
        JdbcOutbox outbox = new JdbcOutbox(JdbcDialect.POSTGRESQL);
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            for (OutboxMessage message : messages) {
                outbox.record(connection, message);
            }
            connection.commit();
        }
    }

    int update(String sql) throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            return statement.executeUpdate(sql);
        }
    }

    long count(String sql) {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws SQLException {
        pool.close();
        execute(ADMIN_URL, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private static void execute(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String setting(String key, String fallback) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            value = System.getenv(key);
        }
        return value == null || value.isBlank() ? fallback : value;
    }
}
