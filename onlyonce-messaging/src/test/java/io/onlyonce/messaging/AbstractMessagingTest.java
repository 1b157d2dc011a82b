package io.onlyonce.messaging;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.ServerClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The message layer's tests on one scratch database and pool mode. A subclass registers the
 * {@link ScratchDatabase} as a static extension and returns it; every nested suite runs on it.
 * Each test starts from empty tables.
 */
abstract class AbstractMessagingTest {

    static final String EXCHANGE = "shop";
    static final String ROUTING_KEY = "order.paid";

    /** The scratch database of the class. */
    protected abstract ScratchDatabase database();

    /** Whether this class runs the 10,000-message test; one pool mode per server runs it. */
    protected boolean runsLongTests() {
        return false;
    }

    DataSource dataSource() {
        return database().dataSource();
    }

    JdbcDialect dialect() {
        return database().dialect();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        database().update("CREATE TABLE IF NOT EXISTS test_effect (message_id VARCHAR(255) NOT NULL,"
                + " consumer VARCHAR(64) NOT NULL, payload VARCHAR(2000) NOT NULL)");
        database().update("CREATE TABLE IF NOT EXISTS test_business (id VARCHAR(255) NOT NULL)");
        database().update("DELETE FROM test_effect");
        database().update("DELETE FROM test_business");
        database().update("DELETE FROM " + MessagingSchema.MESSAGE_LOG_TABLE);
        database().update("DELETE FROM " + MessagingSchema.INBOX_TABLE);
    }

    // ---- helpers shared by the suites ----

    static String uniqueId(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    static OutboxMessage message(String id) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Request-ID", "req-" + id);
        headers.put("content-type", "application/json");
        return new OutboxMessage(id, EXCHANGE, ROUTING_KEY, "{\"id\":\"" + id + "\"}", headers);
    }

    /** Work on a connection in a transaction. */
    @FunctionalInterface
    interface TransactionWork<T> {
        T run(Connection connection) throws Exception;
    }

    /** Runs {@code work} in one transaction of a pool connection: committed if it returns, rolled back if it throws. */
    <T> T inTransaction(TransactionWork<T> work) throws Exception {
        try (Connection connection = dataSource().getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (Exception | Error e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    /** Records {@code messages} in one committed business transaction. */
    void recordCommitted(OutboxMessage... messages) throws Exception {
        JdbcOutbox outbox = new JdbcOutbox(dialect());
        inTransaction(connection -> {
            for (OutboxMessage message : messages) {
                outbox.record(connection, message);
            }
            return null;
        });
    }

    /** Inserts one effect row on {@code connection}: what a consumer's handler does. */
    static void insertEffect(Connection connection, String consumer, InboundMessage message) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO test_effect (message_id, consumer, payload) VALUES (?, ?, ?)")) {
            insert.setString(1, message.id());
            insert.setString(2, consumer);
            insert.setString(3, message.payload());
            insert.executeUpdate();
        }
    }

    long effects(String messageId) throws SQLException {
        return database().queryLong("SELECT COUNT(*) FROM test_effect WHERE message_id = ?", messageId);
    }

    long effectRows() throws SQLException {
        return database().queryLong("SELECT COUNT(*) FROM test_effect");
    }

    long outboxRows() throws SQLException {
        return database().queryLong("SELECT COUNT(*) FROM " + MessagingSchema.MESSAGE_LOG_TABLE);
    }

    long inboxRows() throws SQLException {
        return database().queryLong("SELECT COUNT(*) FROM " + MessagingSchema.INBOX_TABLE);
    }

    long serverNow() throws SQLException {
        return database().queryLong("SELECT " + ServerClock.nowMillis(dialect()));
    }

    /** One outbox row as a user reads it. */
    record Row(String status, int attempts, @Nullable Long nextAttemptAtMs, @Nullable Long sendingSinceMs,
            @Nullable String sendingOwner, @Nullable String lastError, long createdAtMs, @Nullable Long sentAtMs,
            String payload, String headers, @Nullable Long leaseUntilMs) {
    }

    Row row(String id) throws SQLException {
        return database().query("SELECT status, attempts, next_attempt_at_ms, sending_since_ms, sending_owner, last_error,"
                + " created_at_ms, sent_at_ms, payload, headers, lease_until_ms FROM " + MessagingSchema.MESSAGE_LOG_TABLE
                + " WHERE id = ?",
                rs -> new Row(rs.getString(1), rs.getInt(2), nullableLong(rs, 3), nullableLong(rs, 4), rs.getString(5),
                        rs.getString(6), rs.getLong(7), nullableLong(rs, 8), rs.getString(9), rs.getString(10),
                        nullableLong(rs, 11)), id)
                .stream().findFirst().orElseThrow(() -> new AssertionError("no outbox row " + id));
    }

    long rowsWithStatus(String status) throws SQLException {
        return database().queryLong("SELECT COUNT(*) FROM " + MessagingSchema.MESSAGE_LOG_TABLE + " WHERE status = ?", status);
    }

    private static @Nullable Long nullableLong(ResultSet rs, int column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    @Nested
    class Outbox extends OutboxSuite {
        Outbox() {
            super(AbstractMessagingTest.this);
        }
    }

    @Nested
    class Relay extends RelaySuite {
        Relay() {
            super(AbstractMessagingTest.this);
        }
    }

    @Nested
    class Inbox extends InboxSuite {
        Inbox() {
            super(AbstractMessagingTest.this);
        }
    }

    @Nested
    class EndToEnd extends EndToEndSuite {
        EndToEnd() {
            super(AbstractMessagingTest.this);
        }
    }
}
