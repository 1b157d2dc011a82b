package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.internal.ExpiredRows;
import io.onlyonce.jdbc.sql.InsertIfAbsent;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link TokenStore} on a relational database, one row per token id in the token table of
 * {@link JdbcSchema}. Save inserts the row with {@code expires_at_ms} = the server's time + the
 * ttl (the expiry signed into the token is the issuer's statement and is not stored). Consume is
 * one {@code UPDATE ... SET status = 'CONSUMED' WHERE id = ? AND status = 'CREATED' AND
 * expires_at_ms > <server time>}, so exactly one of any number of racing callers succeeds; restore
 * is the same statement the other way round. Thread-safe.
 *
 * <p>Times have millisecond precision and are the database server's. See the
 * {@link io.onlyonce.jdbc package documentation} for connections, transactions, isolation levels,
 * retries and failures.
 */
public final class JdbcTokenStore implements TokenStore {

    private final DataSource dataSource;
    private final Jdbc.Transactions transactions;
    private final InsertIfAbsent save;
    private final String consume;
    private final String restore;
    private final ExpiredRows expiredRows;

    /** A store on the default table {@code onlyonce_token}. */
    public JdbcTokenStore(DataSource dataSource, JdbcDialect dialect) {
        this(dataSource, dialect, JdbcStoreConfig.defaults());
    }

    /** A store on {@link JdbcStoreConfig#tokenTable()}. */
    public JdbcTokenStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(dialect, "dialect");
        this.transactions = Jdbc.Transactions.of(dialect, config.joinTransactions());
        String table = config.tokenTable();
        String now = ServerClock.nowMillis(dialect);
        this.save = new InsertIfAbsent(dialect, table, "id, status, expires_at_ms", "?, 'CREATED', " + now + " + ?");
        this.consume = transition(table, now, "CREATED", "CONSUMED");
        this.restore = transition(table, now, "CONSUMED", "CREATED");
        this.expiredRows = new ExpiredRows(dialect, table, "id", "expires_at_ms");
    }

    /**
     * Records the token as CREATED for {@code ttl} on the database server's clock; a token already
     * saved is left as it is. The table has no bound, so this always returns {@code true}.
     *
     * @throws IllegalArgumentException when {@code ttl} is not positive
     */
    @Override
    public boolean save(OneTimeToken token, Duration ttl) {
        long ttlMillis = ServerClock.millis("ttl", ttl);
        Jdbc.run(dataSource, transactions, "token save", session -> session.step(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(save.sql())) {
                insert.setString(1, token.id());
                insert.setLong(2, ttlMillis);
                return save.execute(insert);
            }
        }));
        return true;
    }

    @Override
    public boolean consume(OneTimeToken token) {
        return update("token consume", consume, token);
    }

    @Override
    public boolean restore(OneTimeToken token) {
        return update("token restore", restore, token);
    }

    /**
     * Deletes the tokens whose life has ended on the database server's clock, at most
     * {@code batchSize} rows per statement, until a statement deletes fewer; unless the store joins
     * the caller's transaction, each batch is committed on its own. Expired tokens can never be
     * consumed, so this only reclaims space.
     *
     * @return how many tokens were deleted
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public int purgeExpired(int batchSize) {
        ExpiredRows.checkBatchSize(batchSize);
        return Jdbc.run(dataSource, transactions, "token purge", session -> expiredRows.purge(session, batchSize));
    }

    private boolean update(String operation, String statement, OneTimeToken token) {
        return Jdbc.run(dataSource, transactions, operation, session -> session.step(connection -> {
            try (PreparedStatement update = connection.prepareStatement(statement)) {
                update.setString(1, token.id());
                return update.executeUpdate() == 1;
            }
        }));
    }

    private static String transition(String table, String now, String from, String to) {
        return "UPDATE " + table + " SET status = '" + to + "' WHERE id = ? AND status = '" + from
                + "' AND expires_at_ms > " + now;
    }
}
