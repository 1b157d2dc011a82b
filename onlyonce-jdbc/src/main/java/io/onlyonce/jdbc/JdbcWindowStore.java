package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.Fingerprint;
import io.onlyonce.jdbc.internal.ExpiredRows;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.jdbc.internal.WindowCounter;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link WindowStore} on a relational database: a fixed-window counter, one row per fingerprint in
 * the window table of {@link JdbcSchema} holding the end of its window and the hits counted in it.
 * A hit whose window has ended on the database server's clock opens a new one with count 1; later
 * hits increment the count and leave the end alone. Each count is decided by one atomic statement,
 * so that of any number of racing hits exactly one is first and no two get the same count:
 *
 * <ul>
 *   <li>PostgreSQL: {@code INSERT ... ON CONFLICT (fingerprint) DO UPDATE SET hit_count = CASE
 *       WHEN <ended> THEN 1 ELSE hit_count + 1 END, window_end_ms = CASE ... END RETURNING
 *       hit_count, window_end_ms - <server time>}.
 *   <li>MySQL and MariaDB: {@code INSERT ... ON DUPLICATE KEY UPDATE} the same two columns, the new
 *       count passed through {@code LAST_INSERT_ID(expr)}, which the next statement on the same
 *       connection reads back with the row's end. Should the window end and a successor open
 *       between the two statements, the time left is reported as 1 ms (the counted window is
 *       over); the count is exact either way.
 *   <li>H2: {@code SELECT ... FROM FINAL TABLE (UPDATE ...)}, and a plain INSERT when there is no
 *       row yet; an insert that loses the race to another starts over, a bounded number of times.
 * </ul>
 *
 * <p>Thread-safe. Times have millisecond precision. See the {@link io.onlyonce.jdbc package
 * documentation} for connections, transactions, isolation levels, retries and failures.
 */
public final class JdbcWindowStore implements WindowStore {

    private final DataSource dataSource;
    private final Jdbc.Transactions transactions;
    private final WindowCounter counter;
    private final ExpiredRows expiredRows;
    private final String release;

    /** A store on the default table {@code onlyonce_window}. */
    public JdbcWindowStore(DataSource dataSource, JdbcDialect dialect) {
        this(dataSource, dialect, JdbcStoreConfig.defaults());
    }

    /** A store on {@link JdbcStoreConfig#windowTable()}. */
    public JdbcWindowStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(dialect, "dialect");
        this.transactions = Jdbc.Transactions.of(dialect, config.joinTransactions());
        this.counter = WindowCounter.of(dialect, config.windowTable());
        this.expiredRows = new ExpiredRows(dialect, config.windowTable(), "fingerprint", "window_end_ms");
        this.release = WindowCounter.release(dialect, config.windowTable());
    }

    /** @throws IllegalArgumentException when {@code window} is not positive */
    @Override
    public WindowHit hit(Fingerprint key, Duration window) {
        String hex = key.hex();
        long windowMillis = ServerClock.millis("window", window);
        return Jdbc.run(dataSource, transactions, "window hit", session -> counter.hit(session, hex, windowMillis));
    }

    @Override
    public void release(Fingerprint key) {
        String hex = key.hex();
        Jdbc.run(dataSource, transactions, "window release", session -> session.step(connection -> {
            try (java.sql.PreparedStatement statement = connection.prepareStatement(release)) {
                statement.setString(1, hex);
                return statement.executeUpdate();
            }
        }));
    }

    /**
     * Deletes the windows that ended on the database server's clock, at most {@code batchSize}
     * rows per statement, until a statement deletes fewer; unless the store joins the caller's
     * transaction, each batch is committed on its own. Ended windows decide nothing, so this only
     * reclaims space.
     *
     * @return how many windows were deleted
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public int purgeExpired(int batchSize) {
        ExpiredRows.checkBatchSize(batchSize);
        return Jdbc.run(dataSource, transactions, "window purge", session -> expiredRows.purge(session, batchSize));
    }
}
