package io.onlyonce.jdbc;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.internal.ExpiredRows;
import io.onlyonce.jdbc.internal.InsertIfAbsent;
import io.onlyonce.jdbc.internal.Jdbc;
import io.onlyonce.window.WindowStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link WindowStore} on a relational database, one row per fingerprint in the window table of
 * {@link JdbcSchema}. A call inserts the row unless the fingerprint is present; otherwise one
 * {@code UPDATE ... SET window_end_ms = ? WHERE fingerprint = ? AND window_end_ms <= ?} reopens a
 * window that has ended. If neither wrote, the open window is confirmed by a read; should the row
 * have vanished in between (purged concurrently), the call starts over, a bounded number of times.
 * Thread-safe.
 *
 * <p>Times have millisecond precision. See the {@link io.onlyonce.jdbc package documentation} for
 * connections, transactions and failures.
 */
public final class JdbcWindowStore implements WindowStore {

    private static final int MAX_ATTEMPTS = 16;

    private final DataSource dataSource;
    private final boolean joinTransactions;
    private final InsertIfAbsent open;
    private final String reopen;
    private final String selectOpen;
    private final ExpiredRows expiredRows;

    /** A store on the default table {@code onlyonce_window}. */
    public JdbcWindowStore(DataSource dataSource, JdbcDialect dialect) {
        this(dataSource, dialect, JdbcStoreConfig.defaults());
    }

    /** A store on {@link JdbcStoreConfig#windowTable()}. */
    public JdbcWindowStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.joinTransactions = config.joinTransactions();
        Objects.requireNonNull(dialect, "dialect");
        String table = config.windowTable();
        this.open = new InsertIfAbsent(dialect, table, "fingerprint, window_end_ms", "?, ?");
        this.reopen = "UPDATE " + table + " SET window_end_ms = ? WHERE fingerprint = ? AND window_end_ms <= ?";
        this.selectOpen = "SELECT 1 FROM " + table + " WHERE fingerprint = ? AND window_end_ms > ?";
        this.expiredRows = new ExpiredRows(dialect, table, "fingerprint", "window_end_ms");
    }

    @Override
    public boolean firstInWindow(Fingerprint fingerprint, Duration window, Instant now) {
        String hex = fingerprint.hex();
        long nowMillis = now.toEpochMilli();
        long endMillis = now.plus(window).toEpochMilli();
        return Jdbc.run(dataSource, joinTransactions, "window check", connection -> {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                if (insert(connection, hex, endMillis) || reopen(connection, hex, endMillis, nowMillis)) {
                    return true;
                }
                if (isOpen(connection, hex, nowMillis)) {
                    return false;
                }
            }
            throw new StoreUnavailableException("window check", new IllegalStateException(
                    "the window kept changing for " + MAX_ATTEMPTS + " attempts"));
        });
    }

    /**
     * Deletes the windows that ended at or before {@code now}, at most {@code batchSize} rows per
     * statement, until a statement deletes fewer. Ended windows decide nothing, so this only
     * reclaims space.
     *
     * @return how many windows were deleted
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public int purgeExpired(Instant now, int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
        return Jdbc.run(dataSource, joinTransactions, "window purge",
                connection -> expiredRows.purge(connection, now.toEpochMilli(), batchSize));
    }

    private boolean insert(Connection connection, String hex, long endMillis) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(open.sql())) {
            insert.setString(1, hex);
            insert.setLong(2, endMillis);
            return open.execute(insert);
        }
    }

    private boolean reopen(Connection connection, String hex, long endMillis, long nowMillis) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(reopen)) {
            update.setLong(1, endMillis);
            update.setString(2, hex);
            update.setLong(3, nowMillis);
            return update.executeUpdate() == 1;
        }
    }

    private boolean isOpen(Connection connection, String hex, long nowMillis) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(selectOpen)) {
            select.setString(1, hex);
            select.setLong(2, nowMillis);
            try (ResultSet row = select.executeQuery()) {
                return row.next();
            }
        }
    }
}
