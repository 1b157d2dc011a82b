package io.onlyonce.messaging;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.messaging.internal.InboxSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The inbox table ({@value MessagingSchema#INBOX_TABLE}): which messages each consumer has
 * processed. {@link IdempotentConsumer} uses it; call it directly only to build a consumer of your
 * own.
 *
 * <p>{@link #record} inserts {@code (consumer, message_id)} in the caller's transaction, FIRST,
 * before the side effect, and never fails that transaction on a duplicate (PostgreSQL
 * {@code ON CONFLICT DO NOTHING}, MySQL and MariaDB {@code INSERT IGNORE}, H2 a caught duplicate-key
 * error). While another transaction holds an uncommitted row for the same pair, the INSERT waits for
 * it: a commit makes this one a duplicate, a rollback lets it insert. So of any number of concurrent
 * deliveries of one message, exactly one runs the side effect.
 *
 * <p>Thread-safe.
 */
public final class JdbcInbox {

    private final InboxSql sql;

    /** An inbox on a database of {@code dialect}, whose schema {@link MessagingSchema} created. */
    public JdbcInbox(JdbcDialect dialect) {
        this.sql = new InboxSql(Objects.requireNonNull(dialect, "dialect"));
    }

    /**
     * Records that {@code consumer} processes {@code messageId}, in the transaction of
     * {@code connection}.
     *
     * @return {@code true} if the row was inserted (go on with the side effect), {@code false} if
     *     it was there: the message was processed before (drop it)
     * @throws IllegalArgumentException when a name is not 1 to 255 visible ASCII characters
     * @throws SQLException when the INSERT fails (a serialization failure, a deadlock, a lock wait
     *     timeout, a lost connection); the caller's transaction must be rolled back
     */
    public boolean record(Connection connection, String consumer, String messageId) throws SQLException {
        checkName("consumer", consumer);
        checkName("message id", messageId);
        try (PreparedStatement insert = connection.prepareStatement(sql.record().sql())) {
            insert.setString(1, consumer);
            insert.setString(2, messageId);
            return sql.record().execute(insert);
        }
    }

    /** Whether {@code consumer} has processed {@code messageId} (committed, or in this connection's transaction). */
    public boolean contains(Connection connection, String consumer, String messageId) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql.contains())) {
            select.setString(1, consumer);
            select.setString(2, messageId);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }

    /**
     * Deletes the rows of every consumer processed at least {@code olderThan} ago on the database
     * server's clock, in batches of at most {@code batchSize} rows, each committed on its own. Keep
     * rows longer than the broker may redeliver a message (and than a producer may re-send it):
     * a message whose row is gone is processed again.
     *
     * @return how many rows were deleted
     * @throws StoreUnavailableException when a batch fails (the batches before it stay deleted)
     */
    public int purge(DataSource dataSource, Duration olderThan, int batchSize) {
        long age = ServerClock.millis("olderThan", olderThan);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
        return Jdbc.run(dataSource, false, "inbox purge", session -> {
            int total = 0;
            int deleted;
            do {
                deleted = session.step(connection -> {
                    try (PreparedStatement delete = connection.prepareStatement(sql.purge())) {
                        int i = 1;
                        delete.setLong(i++, age);
                        if (sql.purgeRepeatsAge()) {
                            delete.setLong(i++, age);
                        }
                        delete.setInt(i, batchSize);
                        return delete.executeUpdate();
                    }
                });
                total += deleted;
            } while (deleted == batchSize);
            return total;
        });
    }

    static void checkName(String what, String name) {
        if (!IdempotencyKey.isValidName(name)) {
            throw new IllegalArgumentException(what + " must be 1 to 255 visible ASCII characters");
        }
    }
}
