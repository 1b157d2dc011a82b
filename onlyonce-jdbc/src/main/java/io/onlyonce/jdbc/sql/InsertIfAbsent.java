package io.onlyonce.jdbc.sql;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * An INSERT that does nothing when the primary key is taken, and says whether it inserted. It never
 * fails on a duplicate in a way that would abort the caller's transaction: PostgreSQL uses
 * {@code ON CONFLICT DO NOTHING}, MySQL and MariaDB {@code INSERT IGNORE}, and H2, which rolls back
 * only the failed statement, a plain INSERT whose duplicate-key error (SQLState 23505) is caught.
 * MySQL's IGNORE would also turn a value too long for its column into a warning; the stores bind
 * only values that are validated to fit.
 */
public final class InsertIfAbsent {

    private static final String DUPLICATE_KEY = "23505";

    private final JdbcDialect dialect;
    private final String sql;

    /**
     * @param columns the column list, for example {@code "id, status"}
     * @param values the matching values with {@code ?} placeholders, for example {@code "?, 'CREATED'"}
     */
    public InsertIfAbsent(JdbcDialect dialect, String table, String columns, String values) {
        this.dialect = dialect;
        String insert = "INTO " + table + " (" + columns + ") VALUES (" + values + ")";
        this.sql = switch (dialect) {
            case POSTGRESQL -> "INSERT " + insert + " ON CONFLICT DO NOTHING";
            case MYSQL -> "INSERT IGNORE " + insert;
            case H2 -> "INSERT " + insert;
        };
    }

    /** The statement to prepare and bind. */
    public String sql() {
        return sql;
    }

    /** Executes the prepared and bound statement; {@code true} if it inserted the row. */
    public boolean execute(PreparedStatement statement) throws SQLException {
        if (dialect != JdbcDialect.H2) {
            return statement.executeUpdate() == 1;
        }
        try {
            return statement.executeUpdate() == 1;
        } catch (SQLException e) {
            if (DUPLICATE_KEY.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }
}
