package io.onlyonce.messaging.internal;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.InsertIfAbsent;
import io.onlyonce.jdbc.sql.ServerClock;

/** The statements of the inbox on one database, times on the server's clock. */
public final class InboxSql {

    /** The table. */
    public static final String TABLE = "onlyonce_inbox";

    private final JdbcDialect dialect;
    private final String now;
    private final InsertIfAbsent record;

    public InboxSql(JdbcDialect dialect) {
        this.dialect = dialect;
        this.now = ServerClock.nowMillis(dialect);
        this.record = new InsertIfAbsent(dialect, TABLE, "consumer, message_id, processed_at_ms", "?, ?, " + now);
    }

    /** Inserts (consumer, message id) unless present; a duplicate inserts nothing and aborts nothing. */
    public InsertIfAbsent record() {
        return record;
    }

    /** Whether (consumer, message id) is present. */
    public String contains() {
        return "SELECT 1 FROM " + TABLE + " WHERE consumer = ? AND message_id = ?";
    }

    /** The time (consumer, message id) was recorded, when present. */
    public String markedAt() {
        return "SELECT processed_at_ms FROM " + TABLE + " WHERE consumer = ? AND message_id = ?";
    }

    /**
     * Deletes one batch of rows processed at least {@code ?} ms ago (parameter 1; again as parameter
     * 2 on PostgreSQL), at most {@code ?} rows (the last parameter).
     */
    public String purge() {
        String old = "processed_at_ms <= " + now + " - ?";
        return switch (dialect) {
            case POSTGRESQL -> "DELETE FROM " + TABLE + " WHERE " + old + " AND (consumer, message_id) IN (SELECT consumer,"
                    + " message_id FROM " + TABLE + " WHERE " + old + " LIMIT ?)";
            case MYSQL -> "DELETE FROM " + TABLE + " WHERE " + old + " ORDER BY processed_at_ms LIMIT ?";
            case H2 -> "DELETE FROM " + TABLE + " WHERE " + old + " FETCH FIRST ? ROWS ONLY";
        };
    }

    /** Whether {@link #purge} takes its age twice. */
    public boolean purgeRepeatsAge() {
        return dialect == JdbcDialect.POSTGRESQL;
    }
}
