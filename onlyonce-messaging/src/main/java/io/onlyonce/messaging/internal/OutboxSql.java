package io.onlyonce.messaging.internal;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.sql.InsertIfAbsent;
import io.onlyonce.jdbc.sql.ServerClock;
import java.util.Collections;

/**
 * The statements of the outbox on one database. Every time is the database server's
 * ({@link ServerClock#nowMillis}), in milliseconds.
 */
public final class OutboxSql {

    /** The table. */
    public static final String TABLE = "onlyonce_message_log";
    /** The claimable states. */
    private static final String LIVE = "status IN ('PREPARED', 'SENDING')";
    /**
     * The claim's own columns: none of them indexed, so that on PostgreSQL a claim is a HOT update.
     * {@code next_attempt_at_ms} keeps the time the row became due, which orders the sweep first.
     */
    private static final String CLAIM_SET = "status = 'SENDING', sending_owner = ?, sending_since_ms = %1$s,"
            + " lease_until_ms = %1$s + ?, attempts = attempts + 1";

    private final JdbcDialect dialect;
    private final String now;
    private final InsertIfAbsent record;
    /**
     * The due rows: PREPARED whose time has come, and SENDING whose lease passed (a row claimed
     * before {@code lease_until_ms} existed has its lease end in {@code next_attempt_at_ms}).
     */
    private final String due;

    public OutboxSql(JdbcDialect dialect) {
        this.dialect = dialect;
        this.now = ServerClock.nowMillis(dialect);
        this.due = LIVE + " AND next_attempt_at_ms <= " + now + " AND (status = 'PREPARED' OR COALESCE(lease_until_ms,"
                + " next_attempt_at_ms) <= " + now + ")";
        this.record = new InsertIfAbsent(dialect, TABLE,
                "id, exchange, routing_key, payload, headers, status, attempts, next_attempt_at_ms, created_at_ms",
                "?, ?, ?, ?, ?, 'PREPARED', 0, " + now + ", " + now);
    }

    /** Records a message as PREPARED, due now; a duplicate id inserts nothing and aborts nothing. */
    public InsertIfAbsent record() {
        return record;
    }

    /**
     * Selects and locks the ids of up to {@code ?} due rows, skipping rows other transactions have
     * locked: PREPARED rows whose time has come, and SENDING rows whose lease has passed.
     */
    public String selectDue() {
        String select = "SELECT id FROM " + TABLE + " WHERE " + due + " ORDER BY next_attempt_at_ms";
        return switch (dialect) {
            case POSTGRESQL, MYSQL -> select + " LIMIT ? FOR UPDATE SKIP LOCKED";
            case H2 -> select + " FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
        };
    }

    /**
     * Claims the rows of {@code count} ids that are still due: SENDING under the owner token
     * (parameter 1) with {@code lease_until_ms} now plus the lease (parameter 2, ms), one more
     * attempt. The ids follow.
     */
    public String claim(int count) {
        return "UPDATE " + TABLE + " SET " + String.format(CLAIM_SET, now) + " WHERE id IN (" + placeholders(count)
                + ") AND " + due;
    }

    /**
     * Whether {@link #claimReturning()} claims in one statement: PostgreSQL. The other databases
     * select the due rows ({@link #selectDue}), claim them ({@link #claim}) and read them back
     * ({@link #selectClaimed}).
     */
    public boolean claimsInOneStatement() {
        return dialect == JdbcDialect.POSTGRESQL;
    }

    /**
     * PostgreSQL: selects, locks (skipping rows other transactions have locked) and claims up to
     * {@code ?} due rows in one statement, as {@link #selectDue} and {@link #claim} do, and returns the
     * columns of {@link #selectClaimed} with {@code created_at_ms} after them, in no particular order.
     * Parameters: owner token, lease (ms), batch size. The due ids are gathered once, as an array
     * (an init plan), before any row is updated.
     */
    public String claimReturning() {
        return "UPDATE " + TABLE + " SET " + String.format(CLAIM_SET, now) + " WHERE id = ANY(ARRAY(SELECT id FROM "
                + TABLE + " WHERE " + due + " ORDER BY next_attempt_at_ms LIMIT ? FOR UPDATE SKIP LOCKED))"
                + " RETURNING id, exchange, routing_key, payload, headers, attempts, created_at_ms";
    }

    /** The rows that the owner token (parameter 1) claimed, among {@code count} ids that follow, oldest first. */
    public String selectClaimed(int count) {
        return "SELECT id, exchange, routing_key, payload, headers, attempts FROM " + TABLE
                + " WHERE sending_owner = ? AND status = 'SENDING' AND id IN (" + placeholders(count) + ")"
                + " ORDER BY created_at_ms, id";
    }

    /** Marks the rows of {@code count} ids (after the owner token, parameter 1) SUCCESS, if the owner still holds them. */
    public String markSent(int count) {
        return "UPDATE " + TABLE + " SET status = 'SUCCESS', sent_at_ms = " + now + ", next_attempt_at_ms = NULL"
                + " WHERE sending_owner = ? AND status = 'SENDING' AND id IN (" + placeholders(count) + ")";
    }

    /** Deletes the rows of {@code count} ids (after the owner token, parameter 1), if the owner still holds them. */
    public String deleteSent(int count) {
        return "DELETE FROM " + TABLE + " WHERE sending_owner = ? AND status = 'SENDING' AND id IN (" + placeholders(count) + ")";
    }

    /** PostgreSQL: {@link #deleteSent} with the ids as one array parameter (parameter 2, after the owner token). */
    public String deleteSentAny() {
        return "DELETE FROM " + TABLE + " WHERE sending_owner = ? AND status = 'SENDING' AND id = ANY(?)";
    }

    /**
     * Whether the ids of a batch are bound as one array parameter ({@link #markSentAny}): PostgreSQL.
     * The other databases bind one parameter per id ({@link #markSent}).
     */
    public boolean bindsIdArrays() {
        return dialect == JdbcDialect.POSTGRESQL;
    }

    /**
     * PostgreSQL: {@link #markSent} with the ids as one array parameter (parameter 2, after the
     * owner token), so that the statement's text is the same for every batch.
     */
    public String markSentAny() {
        return "UPDATE " + TABLE + " SET status = 'SUCCESS', sent_at_ms = " + now + ", next_attempt_at_ms = NULL"
                + " WHERE sending_owner = ? AND status = 'SENDING' AND id = ANY(?)";
    }

    /**
     * Puts one row back to PREPARED, due after a backoff: parameters backoff (ms), last error, id,
     * owner token.
     */
    public String markRetry() {
        return "UPDATE " + TABLE + " SET status = 'PREPARED', next_attempt_at_ms = " + now + " + ?, last_error = ?"
                + " WHERE id = ? AND sending_owner = ? AND status = 'SENDING'";
    }

    /** Marks one row FAILED: parameters last error, id, owner token. */
    public String markFailed() {
        return "UPDATE " + TABLE + " SET status = 'FAILED', next_attempt_at_ms = NULL, last_error = ?"
                + " WHERE id = ? AND sending_owner = ? AND status = 'SENDING'";
    }

    /** Puts one FAILED row (parameter: id) back to PREPARED, due now, attempts 0. */
    public String resubmit() {
        return "UPDATE " + TABLE + " SET status = 'PREPARED', attempts = 0, next_attempt_at_ms = " + now
                + ", sending_owner = NULL WHERE id = ? AND status = 'FAILED'";
    }

    /**
     * Deletes one batch of SUCCESS rows sent at least {@code ?} ms ago (parameter 1; again as
     * parameter 2 on PostgreSQL), at most {@code ?} rows (the last parameter).
     */
    public String purgeSent() {
        String old = "status = 'SUCCESS' AND sent_at_ms <= " + now + " - ?";
        return switch (dialect) {
            case POSTGRESQL -> "DELETE FROM " + TABLE + " WHERE " + old + " AND id IN (SELECT id FROM " + TABLE
                    + " WHERE " + old + " LIMIT ?)";
            case MYSQL -> "DELETE FROM " + TABLE + " WHERE " + old + " ORDER BY sent_at_ms LIMIT ?";
            case H2 -> "DELETE FROM " + TABLE + " WHERE " + old + " FETCH FIRST ? ROWS ONLY";
        };
    }

    /** Whether {@link #purgeSent} takes its age twice. */
    public boolean purgeRepeatsAge() {
        return dialect == JdbcDialect.POSTGRESQL;
    }

    /** Counts the rows per status. */
    public String countByStatus() {
        return "SELECT status, COUNT(*) FROM " + TABLE + " GROUP BY status";
    }

    /**
     * Per destination: the rows waiting to be sent (PREPARED and SENDING: those with a
     * {@code next_attempt_at_ms}, read through the due index) with the age of the oldest in ms, marked
     * 0 in the third column; then the FAILED rows, marked 1, whose count reads the table.
     * Columns: exchange, routing key, kind, count, age.
     */
    public String selectBacklog() {
        return "SELECT exchange, routing_key, 0, COUNT(*), " + now + " - MIN(created_at_ms) FROM " + TABLE
                + " WHERE next_attempt_at_ms IS NOT NULL GROUP BY exchange, routing_key"
                + " UNION ALL SELECT exchange, routing_key, 1, COUNT(*), 0 FROM " + TABLE
                + " WHERE status = 'FAILED' GROUP BY exchange, routing_key";
    }

    /** The FAILED rows, oldest first, at most {@code ?}. */
    public String selectFailed() {
        String failed = "SELECT id, exchange, routing_key, status, attempts, last_error, created_at_ms FROM " + TABLE
                + " WHERE status = 'FAILED' ORDER BY created_at_ms, id";
        return switch (dialect) {
            case POSTGRESQL, MYSQL -> failed + " LIMIT ?";
            case H2 -> failed + " FETCH FIRST ? ROWS ONLY";
        };
    }

    /** One row by id. */
    public String selectOne() {
        return "SELECT id, exchange, routing_key, status, attempts, last_error, created_at_ms FROM " + TABLE + " WHERE id = ?";
    }

    static String placeholders(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("at least one id");
        }
        return String.join(", ", Collections.nCopies(count, "?"));
    }
}
