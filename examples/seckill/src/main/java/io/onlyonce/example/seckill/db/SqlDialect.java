package io.onlyonce.example.seckill.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
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
 * duplicate to commit or roll back first. Also a condition on a list of values ({@link #anyOf}).
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

    /**
     * A condition that {@code column} is one of {@code values}, with its positional parameters. On
     * PostgreSQL it is {@code column = ANY(?)} with one array parameter, one statement text whatever
     * the count and no statement of thousands of parameters (run it under
     * {@link #planForTheseValues}: a generic plan compares every row it reads with every value).
     * Elsewhere {@code column IN (?, ?, ...)}.
     *
     * @param values at least one
     * @param type the element type: String or Long
     */
    public Condition anyOf(String column, Collection<?> values, Class<?> type) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values for " + column);
        }
        if (this == POSTGRESQL) {
            Object array = type == Long.class ? values.toArray(Long[]::new) : values.toArray(String[]::new);
            return new Condition(column + " = ANY(?)", List.of(array));
        }
        StringJoiner marks = new StringJoiner(", ", column + " IN (", ")");
        values.forEach(v -> marks.add("?"));
        return new Condition(marks.toString(), new ArrayList<>(values));
    }

    /**
     * Makes PostgreSQL plan each statement of the current transaction for the values it is run with
     * ({@code SET LOCAL plan_cache_mode = force_custom_plan}); nothing elsewhere. A prepared statement
     * run often gets a generic plan, made once and kept: made while a table was nearly empty (a flash
     * sale's first second), it scans the table for every value of a list long after the table has
     * grown (a 500-value lookup on a 40,000-row table took 200 ms instead of 2 ms). A custom plan
     * sees the table's current size and the values' count.
     */
    public void planForTheseValues(JdbcClient jdbc) {
        if (this == POSTGRESQL) {
            jdbc.sql("SET LOCAL plan_cache_mode = force_custom_plan").update();
        }
    }

    /**
     * A piece of a WHERE clause and the positional parameters it takes, in order.
     *
     * @param sql the condition
     * @param parameters its parameters
     */
    public record Condition(String sql, List<Object> parameters) {
    }
}
