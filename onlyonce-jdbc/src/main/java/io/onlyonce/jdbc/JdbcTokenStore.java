package io.onlyonce.jdbc;

import io.onlyonce.jdbc.internal.ExpiredRows;
import io.onlyonce.jdbc.internal.InsertIfAbsent;
import io.onlyonce.jdbc.internal.Jdbc;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link TokenStore} on a relational database, one row per token id in the token table of
 * {@link JdbcSchema}. Consume is one {@code UPDATE ... SET status = 'CONSUMED' WHERE id = ? AND
 * status = 'CREATED' AND expires_at_ms > ?}, so exactly one of any number of racing callers
 * succeeds; restore is the same statement the other way round. Thread-safe.
 *
 * <p>Times have millisecond precision. See the {@link io.onlyonce.jdbc package documentation} for
 * connections, transactions and failures.
 */
public final class JdbcTokenStore implements TokenStore {

    private final DataSource dataSource;
    private final boolean joinTransactions;
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
        this.joinTransactions = config.joinTransactions();
        Objects.requireNonNull(dialect, "dialect");
        String table = config.tokenTable();
        this.save = new InsertIfAbsent(dialect, table, "id, status, expires_at_ms", "?, 'CREATED', ?");
        this.consume = transition(table, "CREATED", "CONSUMED");
        this.restore = transition(table, "CONSUMED", "CREATED");
        this.expiredRows = new ExpiredRows(dialect, table, "id", "expires_at_ms");
    }

    /** Records the token as CREATED; a token already saved is left as it is. */
    @Override
    public void save(OneTimeToken token, Instant now) {
        Jdbc.run(dataSource, joinTransactions, "token save", connection -> {
            try (PreparedStatement insert = connection.prepareStatement(save.sql())) {
                insert.setString(1, token.id());
                insert.setLong(2, token.expiresAt().toEpochMilli());
                return save.execute(insert);
            }
        });
    }

    @Override
    public boolean consume(OneTimeToken token, Instant now) {
        return update("token consume", consume, token, now);
    }

    @Override
    public boolean restore(OneTimeToken token, Instant now) {
        return update("token restore", restore, token, now);
    }

    /**
     * Deletes the tokens that expired at or before {@code now}, at most {@code batchSize} rows per
     * statement, until a statement deletes fewer. Expired tokens can never be consumed, so this
     * only reclaims space.
     *
     * @return how many tokens were deleted
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public int purgeExpired(Instant now, int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
        return Jdbc.run(dataSource, joinTransactions, "token purge",
                connection -> expiredRows.purge(connection, now.toEpochMilli(), batchSize));
    }

    private boolean update(String operation, String statement, OneTimeToken token, Instant now) {
        return Jdbc.run(dataSource, joinTransactions, operation, connection -> {
            try (PreparedStatement update = connection.prepareStatement(statement)) {
                update.setString(1, token.id());
                update.setLong(2, now.toEpochMilli());
                return update.executeUpdate() == 1;
            }
        });
    }

    private static String transition(String table, String from, String to) {
        return "UPDATE " + table + " SET status = '" + to + "' WHERE id = ? AND status = '" + from
                + "' AND expires_at_ms > ?";
    }
}
