package io.onlyonce.jdbc.internal;

import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.jdbc.sql.InsertIfAbsent;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.jdbc.sql.JdbcDialect;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements on the idempotency table for one dialect and table name. The row is found by
 * {@code (scope, idem_key)} on PostgreSQL and H2 and by {@link KeyHash} on MySQL and MariaDB;
 * {@link #bindKey} and {@link #bindInsertKey} bind whichever applies. Status {@code P} is
 * IN_PROGRESS, {@code C} COMPLETED (with the response columns set, or all three NULL when the
 * response could not be kept). Every time is the {@link ServerClock}'s; parameters carry durations
 * in milliseconds, never instants.
 */
public final class IdempotencySql {

    private final boolean hashedKey;
    private final boolean upsert;
    private final String claim;
    private final InsertIfAbsent insert;
    private final String takeOver;
    private final String selectLive;
    private final String selectLiveLocking;
    private final String complete;
    private final String release;
    private final ExpiredRows expiredRows;

    public IdempotencySql(JdbcDialect dialect, String table) {
        String now = ServerClock.nowMillis(dialect);
        this.hashedKey = dialect == JdbcDialect.MYSQL;
        this.upsert = dialect == JdbcDialect.POSTGRESQL;
        String key = hashedKey ? "key_hash = ?" : "scope = ? AND idem_key = ?";
        String keyColumns = hashedKey ? "key_hash, scope, idem_key" : "scope, idem_key";
        String keyValues = hashedKey ? "?, ?, ?" : "?, ?";
        String columns = keyColumns + ", status, fingerprint, owner, expires_at_ms, created_at_ms";
        String values = keyValues + ", 'P', ?, ?, " + now + " + ?, " + now;
        this.claim = "INSERT INTO " + table + " AS r (" + columns + ") VALUES (" + values + ")"
                + " ON CONFLICT (scope, idem_key) DO UPDATE SET status = 'P', fingerprint = EXCLUDED.fingerprint,"
                + " owner = EXCLUDED.owner, expires_at_ms = EXCLUDED.expires_at_ms, created_at_ms = EXCLUDED.created_at_ms,"
                + " response_status = NULL, response_headers = NULL, response_body = NULL"
                + " WHERE r.expires_at_ms <= EXCLUDED.created_at_ms RETURNING r.owner";
        this.insert = new InsertIfAbsent(dialect, table, columns, values);
        this.takeOver = "UPDATE " + table + " SET status = 'P', fingerprint = ?, owner = ?, created_at_ms = " + now + ","
                + " response_status = NULL, response_headers = NULL, response_body = NULL,"
                + " expires_at_ms = " + now + " + ? WHERE " + key + " AND expires_at_ms <= " + now;
        this.selectLive = "SELECT status, fingerprint, owner, expires_at_ms - " + now + ", response_status,"
                + " response_headers, response_body FROM " + table + " WHERE " + key + " AND expires_at_ms > " + now;
        this.selectLiveLocking = hashedKey ? selectLive + " LOCK IN SHARE MODE" : selectLive;
        String heldBy = " WHERE " + key + " AND status = 'P' AND owner = ? AND expires_at_ms > " + now;
        this.complete = "UPDATE " + table + " SET status = 'C', expires_at_ms = " + now + " + ?, response_status = ?,"
                + " response_headers = ?, response_body = ?" + heldBy;
        this.release = "DELETE FROM " + table + heldBy;
        this.expiredRows = new ExpiredRows(dialect, table, hashedKey ? "key_hash" : "scope, idem_key", "expires_at_ms");
    }

    /**
     * Whether a claim is the one statement {@link #claim()} (PostgreSQL); otherwise it is
     * {@link #insert()} and, when that inserted nothing, {@link #takeOver()}.
     */
    public boolean upsert() {
        return upsert;
    }

    /**
     * PostgreSQL: inserts an IN_PROGRESS row, or turns an expired one into it, in one statement;
     * returns the owner when it wrote, no row when the key is live. Parameters: the key
     * ({@link #bindInsertKey}), fingerprint, owner, lease in ms.
     */
    public String claim() {
        return claim;
    }

    /**
     * Inserts an IN_PROGRESS row if the key is absent. Parameters: the key
     * ({@link #bindInsertKey}), fingerprint, owner, lease in ms.
     */
    public InsertIfAbsent insert() {
        return insert;
    }

    /**
     * Turns an expired row into a fresh IN_PROGRESS one. Parameters: fingerprint, owner, lease in
     * ms, the key ({@link #bindKey}).
     */
    public String takeOver() {
        return takeOver;
    }

    /**
     * Reads the row unless expired; columns: status, fingerprint, owner, ms left, response_status,
     * response_headers, response_body. Parameters: the key.
     */
    public String selectLive() {
        return selectLive;
    }

    /**
     * {@link #selectLive()} as a reading that sees the latest committed row even inside a
     * transaction whose snapshot is older (MySQL and MariaDB at REPEATABLE READ, their default): a
     * locking read. The same statement elsewhere, where every statement at READ COMMITTED sees the
     * latest committed row.
     */
    public String selectLiveLocking() {
        return selectLiveLocking;
    }

    /**
     * Completes the holder's row. Parameters: retention in ms, response_status, response_headers,
     * response_body (the three NULL for a response not kept), the key, owner.
     */
    public String complete() {
        return complete;
    }

    /** Deletes the holder's row. Parameters: the key, owner. */
    public String release() {
        return release;
    }

    public ExpiredRows expiredRows() {
        return expiredRows;
    }

    /** Binds the key of a WHERE clause from parameter {@code index}; returns the next index. */
    public int bindKey(PreparedStatement statement, int index, IdempotencyKey key) throws SQLException {
        if (hashedKey) {
            statement.setBytes(index, KeyHash.of(key));
            return index + 1;
        }
        statement.setString(index, key.scope());
        statement.setString(index + 1, key.name());
        return index + 2;
    }

    /** Binds the key columns of the insert from parameter {@code index}; returns the next index. */
    public int bindInsertKey(PreparedStatement statement, int index, IdempotencyKey key) throws SQLException {
        int next = index;
        if (hashedKey) {
            statement.setBytes(next++, KeyHash.of(key));
        }
        statement.setString(next, key.scope());
        statement.setString(next + 1, key.name());
        return next + 2;
    }
}
