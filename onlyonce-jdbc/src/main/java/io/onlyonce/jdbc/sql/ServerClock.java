package io.onlyonce.jdbc.sql;

import java.time.Duration;

/**
 * The database server's current time as epoch milliseconds, in SQL: the one clock that every
 * application instance sharing the database shares. Each expression is independent of the session
 * time zone and of the JVM's clock and zone, and has one value within a statement.
 *
 * <ul>
 *   <li>PostgreSQL: {@code statement_timestamp()}, the start of the current statement (not of the
 *       transaction, as {@code now()} would be), a {@code timestamptz} whose epoch is absolute.
 *   <li>MySQL and MariaDB: {@code UTC_TIMESTAMP(3)} counted from the epoch by
 *       {@code TIMESTAMPDIFF}; {@code NOW()} and {@code UNIX_TIMESTAMP(NOW())} would go through the
 *       session time zone. Constant within a statement.
 *   <li>H2: {@code EXTRACT(EPOCH FROM CURRENT_TIMESTAMP)} (H2's {@code DATEDIFF} from a
 *       {@code TIMESTAMP WITH TIME ZONE} epoch follows the session zone, so it is not used). H2
 *       keeps {@code CURRENT_TIMESTAMP} for a whole transaction: one statement when the store runs
 *       its own, the start of the caller's transaction when it joins one.
 * </ul>
 */
public final class ServerClock {

    private ServerClock() {
    }

    /** The SQL expression of the server's current epoch millisecond, a BIGINT, rounded down. */
    public static String nowMillis(JdbcDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint";
            case MYSQL -> "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000)";
            case H2 -> "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)";
        };
    }

    /**
     * A lease, retention, life or window in whole milliseconds, at least one.
     *
     * @param what the parameter's name, for the exception message
     * @throws IllegalArgumentException when {@code duration} is zero or negative
     */
    public static long millis(String what, Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + duration);
        }
        return Math.max(1, duration.toMillis());
    }
}
