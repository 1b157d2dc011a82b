package io.onlyonce.jdbc.internal;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.jdbc.JdbcDialect;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements on the idempotency table for one dialect and table name. The row is found by
 * {@code (scope, idem_key)} on PostgreSQL and H2 and by {@link KeyHash} on MySQL and MariaDB;
 * {@link #bindKey} and {@link #bindInsertKey} bind whichever applies. Status {@code P} is
 * IN_PROGRESS, {@code C} COMPLETED.
 */
public final class IdempotencySql {

    private final boolean hashedKey;
    private final InsertIfAbsent insert;
    private final String takeOver;
    private final String selectLive;
    private final String complete;
    private final String release;
    private final ExpiredRows expiredRows;

    public IdempotencySql(JdbcDialect dialect, String table) {
        this.hashedKey = dialect == JdbcDialect.MYSQL;
        String key = hashedKey ? "key_hash = ?" : "scope = ? AND idem_key = ?";
        String keyColumns = hashedKey ? "key_hash, scope, idem_key" : "scope, idem_key";
        String keyValues = hashedKey ? "?, ?, ?" : "?, ?";
        this.insert = new InsertIfAbsent(dialect, table,
                keyColumns + ", status, fingerprint, owner, expires_at_ms, created_at_ms",
                keyValues + ", 'P', ?, ?, ?, ?");
        this.takeOver = "UPDATE " + table + " SET status = 'P', fingerprint = ?, owner = ?, expires_at_ms = ?,"
                + " created_at_ms = ?, response_status = NULL, response_headers = NULL, response_body = NULL"
                + " WHERE " + key + " AND expires_at_ms <= ?";
        this.selectLive = "SELECT status, fingerprint, owner, expires_at_ms, response_status, response_headers,"
                + " response_body FROM " + table + " WHERE " + key + " AND expires_at_ms > ?";
        String heldBy = " WHERE " + key + " AND status = 'P' AND owner = ? AND expires_at_ms > ?";
        this.complete = "UPDATE " + table + " SET status = 'C', expires_at_ms = ?, response_status = ?,"
                + " response_headers = ?, response_body = ?" + heldBy;
        this.release = "DELETE FROM " + table + heldBy;
        this.expiredRows = new ExpiredRows(dialect, table, hashedKey ? "key_hash" : "scope, idem_key", "expires_at_ms");
    }

    /**
     * Inserts an IN_PROGRESS row if the key is absent. Parameters: the key
     * ({@link #bindInsertKey}), fingerprint, owner, expires_at_ms, created_at_ms.
     */
    public InsertIfAbsent insert() {
        return insert;
    }

    /**
     * Turns an expired row into a fresh IN_PROGRESS one. Parameters: fingerprint, owner,
     * expires_at_ms, created_at_ms, the key ({@link #bindKey}), now.
     */
    public String takeOver() {
        return takeOver;
    }

    /**
     * Reads the row unless expired; columns: status, fingerprint, owner, expires_at_ms,
     * response_status, response_headers, response_body. Parameters: the key, now.
     */
    public String selectLive() {
        return selectLive;
    }

    /**
     * Completes the holder's row. Parameters: expires_at_ms, response_status, response_headers,
     * response_body, the key, owner, now.
     */
    public String complete() {
        return complete;
    }

    /** Deletes the holder's row. Parameters: the key, owner, now. */
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
