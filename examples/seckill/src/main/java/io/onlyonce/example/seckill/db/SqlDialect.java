package io.onlyonce.example.seckill.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The three databases this service runs on, and the one statement where they differ: an INSERT
 * that skips a row colliding with a unique key, without aborting the transaction. PostgreSQL
 * aborts a whole transaction on a unique violation, so it gets {@code ON CONFLICT DO NOTHING};
 * MySQL/MariaDB get {@code INSERT IGNORE}; H2 keeps the transaction usable after the error, so the
 * plain INSERT's {@link DuplicateKeyException} is caught. Each waits for a concurrent uncommitted
 * duplicate to commit or roll back first.
 */
public enum SqlDialect {
    H2,
    POSTGRESQL,
    MYSQL;

    /** The dialect of {@code dataSource}'s database. */
    public static SqlDialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            String name = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
            if (name.startsWith("postgresql")) {
                return POSTGRESQL;
            }
            if (name.startsWith("mysql") || name.startsWith("mariadb")) {
                return MYSQL;
            }
            if (name.equals("h2")) {
                return H2;
            }
            throw new IllegalStateException("unsupported database: " + name);
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException("cannot detect the database", e);
        }
    }

    /**
     * Runs {@code INSERT INTO table (columns) VALUES (values)} unless the row collides with a unique key.
     *
     * @return true if the row was inserted, false if a unique key already held it
     */
    public boolean insertIfAbsent(JdbcClient jdbc, String table, String columns, String values, Object... parameters) {
        String sql = switch (this) {
            case POSTGRESQL -> "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON CONFLICT DO NOTHING";
            case MYSQL -> "INSERT IGNORE INTO " + table + " (" + columns + ") VALUES (" + values + ")";
            case H2 -> "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")";
        };
        try {
            return jdbc.sql(sql).params(parameters).update() == 1;
        } catch (DuplicateKeyException e) {
            if (this == H2) {
                return false;
            }
            throw e;
        }
    }
}
