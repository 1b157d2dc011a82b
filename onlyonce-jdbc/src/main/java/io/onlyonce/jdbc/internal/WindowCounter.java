package io.onlyonce.jdbc.internal;

import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.jdbc.sql.InsertIfAbsent;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.window.WindowHit;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Counts one hit in the window table of one dialect: a window that has ended on the
 * {@link ServerClock} is reopened with count 1, otherwise the count goes up by one and the end
 * stays. Every count is decided by one atomic statement.
 */
public abstract sealed class WindowCounter {

    /** The counter for {@code dialect} on {@code table}. */
    public static WindowCounter of(JdbcDialect dialect, String table) {
        return switch (dialect) {
            case POSTGRESQL -> new Postgres(table);
            case MYSQL -> new MySql(table);
            case H2 -> new H2(table);
        };
    }

    /** Counts a hit on the fingerprint {@code hex} with a window of {@code windowMillis}. */
    public abstract WindowHit hit(Jdbc.Session session, String hex, long windowMillis) throws SQLException;

    /**
     * The statement that takes back one hit of the open window on a fingerprint (parameter 1): one
     * less, and the last one taken back ends the window (its end becomes now, so the next hit opens
     * a new one). The end is assigned first: MySQL assigns in order, and it must read the old count.
     */
    public static String release(JdbcDialect dialect, String table) {
        String now = ServerClock.nowMillis(dialect);
        return "UPDATE " + table + " SET window_end_ms = CASE WHEN hit_count <= 1 THEN " + now
                + " ELSE window_end_ms END, hit_count = hit_count - 1 WHERE fingerprint = ? AND window_end_ms > " + now
                + " AND hit_count >= 1";
    }

    /** A hit; a window that ended between counting and reading is reported with 1 ms left. */
    static WindowHit hit(long count, long leftMillis) {
        return new WindowHit(count, Duration.ofMillis(Math.max(1, leftMillis)));
    }

    /**
     * {@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING}: one statement counts and returns the
     * count and the time left.
     */
    static final class Postgres extends WindowCounter {

        private final String upsert;

        Postgres(String table) {
            String now = ServerClock.nowMillis(JdbcDialect.POSTGRESQL);
            String ended = "w.window_end_ms <= " + now;
            this.upsert = "INSERT INTO " + table + " AS w (fingerprint, window_end_ms, hit_count) VALUES (?, " + now
                    + " + ?, 1) ON CONFLICT (fingerprint) DO UPDATE SET"
                    + " hit_count = CASE WHEN " + ended + " THEN 1 ELSE w.hit_count + 1 END,"
                    + " window_end_ms = CASE WHEN " + ended + " THEN EXCLUDED.window_end_ms ELSE w.window_end_ms END"
                    + " RETURNING w.hit_count, w.window_end_ms - " + now;
        }

        @Override
        public WindowHit hit(Jdbc.Session session, String hex, long windowMillis) throws SQLException {
            return session.step(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(upsert)) {
                    statement.setString(1, hex);
                    statement.setLong(2, windowMillis);
                    try (ResultSet row = statement.executeQuery()) {
                        if (!row.next()) {
                            throw new SQLException("the window upsert returned no row");
                        }
                        return hit(row.getLong(1), row.getLong(2));
                    }
                }
            });
        }
    }

    /**
     * {@code INSERT ... ON DUPLICATE KEY UPDATE}, the new count passed through
     * {@code LAST_INSERT_ID(expr)}; the next statement on the connection reads it back with the
     * row's end. Should the window end and a successor open between the two, the counted window is
     * over and reported with 1 ms left; the count is exact either way.
     */
    static final class MySql extends WindowCounter {

        private final String upsert;
        private final String readBack;

        MySql(String table) {
            String now = ServerClock.nowMillis(JdbcDialect.MYSQL);
            String ended = "window_end_ms <= " + now;
            // MySQL assigns in order: the count goes first, so that both assignments read the old end.
            this.upsert = "INSERT INTO " + table + " (fingerprint, window_end_ms, hit_count) VALUES (?, " + now
                    + " + ?, LAST_INSERT_ID(1)) ON DUPLICATE KEY UPDATE"
                    + " hit_count = LAST_INSERT_ID(IF(" + ended + ", 1, hit_count + 1)),"
                    + " window_end_ms = IF(" + ended + ", " + now + " + ?, window_end_ms)";
            this.readBack = "SELECT LAST_INSERT_ID(), w.hit_count, w.window_end_ms - " + now
                    + " FROM (SELECT 1 AS one) o LEFT JOIN " + table + " w ON w.fingerprint = ?";
        }

        @Override
        public WindowHit hit(Jdbc.Session session, String hex, long windowMillis) throws SQLException {
            session.step(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(upsert)) {
                    statement.setString(1, hex);
                    statement.setLong(2, windowMillis);
                    statement.setLong(3, windowMillis);
                    return statement.executeUpdate();
                }
            });
            return session.step(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(readBack)) {
                    statement.setString(1, hex);
                    try (ResultSet row = statement.executeQuery()) {
                        row.next();
                        long count = row.getLong(1);
                        if (count == 1) {
                            return hit(1, windowMillis);
                        }
                        long rowCount = row.getLong(2);
                        boolean sameWindow = !row.wasNull() && rowCount >= count;
                        return hit(count, sameWindow ? row.getLong(3) : 0);
                    }
                }
            });
        }
    }

    /**
     * {@code SELECT ... FROM FINAL TABLE (UPDATE ...)} counts on an existing row; without one, a
     * plain INSERT opens the window, and an insert that loses the race to another starts over, a
     * bounded number of times.
     */
    static final class H2 extends WindowCounter {

        private static final int MAX_ATTEMPTS = 16;

        private final String update;
        private final InsertIfAbsent insert;

        H2(String table) {
            String now = ServerClock.nowMillis(JdbcDialect.H2);
            String ended = "window_end_ms <= " + now;
            this.update = "SELECT hit_count, window_end_ms - " + now + " FROM FINAL TABLE (UPDATE " + table + " SET"
                    + " hit_count = CASE WHEN " + ended + " THEN 1 ELSE hit_count + 1 END,"
                    + " window_end_ms = CASE WHEN " + ended + " THEN " + now + " + ? ELSE window_end_ms END"
                    + " WHERE fingerprint = ?)";
            this.insert = new InsertIfAbsent(JdbcDialect.H2, table, "fingerprint, window_end_ms, hit_count",
                    "?, " + now + " + ?, 1");
        }

        @Override
        public WindowHit hit(Jdbc.Session session, String hex, long windowMillis) throws SQLException {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                WindowHit counted = session.step(connection -> update(connection, hex, windowMillis));
                if (counted != null) {
                    return counted;
                }
                if (session.step(connection -> insert(connection, hex, windowMillis))) {
                    return hit(1, windowMillis);
                }
            }
            throw new StoreUnavailableException("window hit", new IllegalStateException(
                    "the window kept changing for " + MAX_ATTEMPTS + " attempts"));
        }

        private @Nullable WindowHit update(Connection connection, String hex, long windowMillis)
                throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(update)) {
                statement.setLong(1, windowMillis);
                statement.setString(2, hex);
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() ? hit(row.getLong(1), row.getLong(2)) : null;
                }
            }
        }

        private boolean insert(Connection connection, String hex, long windowMillis) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(insert.sql())) {
                statement.setString(1, hex);
                statement.setLong(2, windowMillis);
                return insert.execute(statement);
            }
        }
    }
}
