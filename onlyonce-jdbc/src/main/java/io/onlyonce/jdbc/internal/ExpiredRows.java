package io.onlyonce.jdbc.internal;

import io.onlyonce.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Deletes the expired rows of one table in batches. PostgreSQL has no {@code DELETE ... LIMIT}: it
 * deletes the keys of a limited sub-select, and re-checks the expiry on the row it deletes, so that
 * a row taken over between the sub-select and the delete survives. MySQL, MariaDB and H2 limit the
 * DELETE itself.
 */
public final class ExpiredRows {

    private final JdbcDialect dialect;
    private final String sql;

    /**
     * @param keyColumns the primary key columns, for example {@code "scope, idem_key"}
     * @param expiryColumn the column holding the epoch millisecond at which a row expires
     */
    public ExpiredRows(JdbcDialect dialect, String table, String keyColumns, String expiryColumn) {
        this.dialect = dialect;
        String expired = expiryColumn + " <= ?";
        this.sql = switch (dialect) {
            case POSTGRESQL -> "DELETE FROM " + table + " WHERE " + expired + " AND (" + keyColumns + ") IN (SELECT "
                    + keyColumns + " FROM " + table + " WHERE " + expired + " LIMIT ?)";
            case MYSQL -> "DELETE FROM " + table + " WHERE " + expired + " ORDER BY " + expiryColumn + " LIMIT ?";
            case H2 -> "DELETE FROM " + table + " WHERE " + expired + " FETCH FIRST ? ROWS ONLY";
        };
    }

    /**
     * Deletes the rows that expired at or before {@code nowMillis}, at most {@code batchSize} per
     * statement, until a statement deletes fewer than {@code batchSize}.
     *
     * @return how many rows were deleted
     */
    public int purge(Connection connection, long nowMillis, int batchSize) throws SQLException {
        int total = 0;
        try (PreparedStatement delete = connection.prepareStatement(sql)) {
            int index = 1;
            delete.setLong(index++, nowMillis);
            if (dialect == JdbcDialect.POSTGRESQL) {
                delete.setLong(index++, nowMillis);
            }
            delete.setInt(index, batchSize);
            int deleted;
            do {
                deleted = delete.executeUpdate();
                total += deleted;
            } while (deleted == batchSize);
        }
        return total;
    }
}
