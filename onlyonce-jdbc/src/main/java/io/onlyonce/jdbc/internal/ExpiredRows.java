package io.onlyonce.jdbc.internal;

import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.JdbcDialect;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Deletes the expired rows of one table in batches, expiry judged on the {@link ServerClock}.
 * PostgreSQL has no {@code DELETE ... LIMIT}: it deletes the keys of a limited sub-select, and
 * re-checks the expiry on the row it deletes, so that a row taken over between the sub-select and
 * the delete survives. MySQL, MariaDB and H2 limit the DELETE itself.
 */
public final class ExpiredRows {

    private final String sql;

    /**
     * @param keyColumns the primary key columns, for example {@code "scope, idem_key"}
     * @param expiryColumn the column holding the epoch millisecond at which a row expires
     */
    public ExpiredRows(JdbcDialect dialect, String table, String keyColumns, String expiryColumn) {
        String expired = expiryColumn + " <= " + ServerClock.nowMillis(dialect);
        this.sql = switch (dialect) {
            case POSTGRESQL -> "DELETE FROM " + table + " WHERE " + expired + " AND (" + keyColumns + ") IN (SELECT "
                    + keyColumns + " FROM " + table + " WHERE " + expired + " LIMIT ?)";
            case MYSQL -> "DELETE FROM " + table + " WHERE " + expired + " ORDER BY " + expiryColumn + " LIMIT ?";
            case H2 -> "DELETE FROM " + table + " WHERE " + expired + " FETCH FIRST ? ROWS ONLY";
        };
    }

    /** The DELETE of one batch; its one parameter is the batch size. */
    public String sql() {
        return sql;
    }

    /**
     * Deletes the rows that have expired, at most {@code batchSize} per statement, until a statement
     * deletes fewer than {@code batchSize}. Each batch is a {@link Jdbc.Session#step step}: unless
     * the session joins the caller's transaction, it is committed before the next one starts, so
     * that the purge never holds the locks of more than one batch.
     *
     * @return how many rows were deleted
     */
    public int purge(Jdbc.Session session, int batchSize) throws SQLException {
        int total = 0;
        int deleted;
        do {
            deleted = session.step(connection -> {
                try (PreparedStatement delete = connection.prepareStatement(sql)) {
                    delete.setInt(1, batchSize);
                    return delete.executeUpdate();
                }
            });
            total += deleted;
        } while (deleted == batchSize);
        return total;
    }

    /**
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public static void checkBatchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
    }
}
