package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.jdbc.internal.ExpiredRows;
import io.onlyonce.jdbc.internal.HeaderLines;
import io.onlyonce.jdbc.internal.IdempotencySql;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@link IdempotencyStore} on a relational database, one row per key in the idempotency table of
 * {@link JdbcSchema}. Thread-safe.
 *
 * <p>A claim never checks and then inserts. On PostgreSQL it is one statement,
 * {@code INSERT ... ON CONFLICT (scope, idem_key) DO UPDATE ... WHERE expires_at_ms <= now
 * RETURNING owner}, which writes a new row or takes over an expired one (a retention or a lease
 * that has passed) and says whether it did. On MySQL, MariaDB and H2 it inserts the row unless the
 * key is taken (without an error that would abort a joined transaction) and, if nothing was
 * inserted, one conditional UPDATE takes over an expired row. When neither wrote, the live row is
 * read and returned as {@link ClaimResult.Existing}; should it vanish or expire before that read
 * (released or purged concurrently), the claim starts over, a bounded number of times. Complete and
 * release are each one UPDATE or DELETE that matches only the holder's unexpired IN_PROGRESS row.
 *
 * <p>Every expiry is decided and every remaining time computed in SQL on the database server's
 * clock, so that application instances whose clocks or time zones differ agree; times have
 * millisecond precision. See the {@link io.onlyonce.jdbc package documentation} for connections,
 * transactions, isolation levels, retries and failures.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    private static final int MAX_CLAIM_ATTEMPTS = 16;

    private final DataSource dataSource;
    private final Jdbc.Transactions transactions;
    private final IdempotencySql sql;
    private final String selectLive;

    /** A store on the default table {@code onlyonce_idempotency}. */
    public JdbcIdempotencyStore(DataSource dataSource, JdbcDialect dialect) {
        this(dataSource, dialect, JdbcStoreConfig.defaults());
    }

    /** A store on {@link JdbcStoreConfig#idempotencyTable()}. */
    public JdbcIdempotencyStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(dialect, "dialect");
        this.transactions = Jdbc.Transactions.of(dialect, config.joinTransactions());
        this.sql = new IdempotencySql(dialect, config.idempotencyTable());
        // joined, the caller's transaction may hold a snapshot older than the row a concurrent claim
        // just committed (MySQL's REPEATABLE READ): read the latest committed row instead
        this.selectLive = transactions == Jdbc.Transactions.JOINED ? sql.selectLiveLocking() : sql.selectLive();
    }

    /** @throws IllegalArgumentException when {@code lease} is not positive */
    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        OwnerToken owner = OwnerToken.random();
        long leaseMillis = ServerClock.millis("lease", lease);
        return Jdbc.run(dataSource, transactions, "claim", session -> {
            for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
                boolean claimed = sql.upsert()
                        ? session.step(connection -> upsert(connection, key, fingerprint, owner, leaseMillis))
                        : session.step(connection -> insert(connection, key, fingerprint, owner, leaseMillis))
                                || session.step(connection -> takeOver(connection, key, fingerprint, owner, leaseMillis));
                if (claimed) {
                    return new ClaimResult.Claimed(owner);
                }
                IdempotencyRecord live = session.step(connection -> selectLive(connection, key));
                if (live != null) {
                    return new ClaimResult.Existing(live);
                }
            }
            throw new StoreUnavailableException("claim", new IllegalStateException(
                    "the record kept changing under the claim for " + MAX_CLAIM_ATTEMPTS + " attempts"));
        });
    }

    /**
     * {@inheritDoc} A {@code null} response leaves the row COMPLETED with its three response
     * columns NULL.
     *
     * @throws IllegalArgumentException when {@code retention} is not positive
     */
    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
        long retentionMillis = ServerClock.millis("retention", retention);
        String headers = response == null ? null : HeaderLines.encode(response.headers());
        return Jdbc.run(dataSource, transactions, "complete", session -> session.step(connection -> {
            try (PreparedStatement update = connection.prepareStatement(sql.complete())) {
                update.setLong(1, retentionMillis);
                if (response == null) {
                    update.setNull(2, Types.SMALLINT);
                    update.setNull(3, Types.VARCHAR);
                    update.setNull(4, Types.VARBINARY);
                } else {
                    update.setInt(2, response.status());
                    update.setString(3, headers);
                    update.setBytes(4, response.body());
                }
                int index = sql.bindKey(update, 5, key);
                update.setString(index, owner.value());
                return update.executeUpdate() == 1;
            }
        }));
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner) {
        return Jdbc.run(dataSource, transactions, "release", session -> session.step(connection -> {
            try (PreparedStatement delete = connection.prepareStatement(sql.release())) {
                int index = sql.bindKey(delete, 1, key);
                delete.setString(index, owner.value());
                return delete.executeUpdate() == 1;
            }
        }));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return Jdbc.run(dataSource, transactions, "find",
                session -> Optional.ofNullable(session.step(connection -> selectLive(connection, key))));
    }

    /**
     * Deletes the records whose lease or retention has ended on the database server's clock, at
     * most {@code batchSize} rows per statement, until a statement deletes fewer. Unless the store
     * joins the caller's transaction, each batch is committed before the next one starts, so a
     * purge never holds more than one batch's locks against claims. Run it from a scheduler; the
     * store is correct without it, expired rows only take space.
     *
     * @return how many records were deleted
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public int purgeExpired(int batchSize) {
        ExpiredRows.checkBatchSize(batchSize);
        return Jdbc.run(dataSource, transactions, "purge", session -> sql.expiredRows().purge(session, batchSize));
    }

    private boolean upsert(Connection connection, IdempotencyKey key, Fingerprint fingerprint, OwnerToken owner,
            long leaseMillis) throws SQLException {
        try (PreparedStatement upsert = connection.prepareStatement(sql.claim())) {
            int index = sql.bindInsertKey(upsert, 1, key);
            upsert.setString(index, fingerprint.hex());
            upsert.setString(index + 1, owner.value());
            upsert.setLong(index + 2, leaseMillis);
            try (ResultSet written = upsert.executeQuery()) {
                return written.next();
            }
        }
    }

    private boolean insert(Connection connection, IdempotencyKey key, Fingerprint fingerprint, OwnerToken owner,
            long leaseMillis) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql.insert().sql())) {
            int index = sql.bindInsertKey(insert, 1, key);
            insert.setString(index, fingerprint.hex());
            insert.setString(index + 1, owner.value());
            insert.setLong(index + 2, leaseMillis);
            return sql.insert().execute(insert);
        }
    }

    private boolean takeOver(Connection connection, IdempotencyKey key, Fingerprint fingerprint, OwnerToken owner,
            long leaseMillis) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql.takeOver())) {
            update.setString(1, fingerprint.hex());
            update.setString(2, owner.value());
            update.setLong(3, leaseMillis);
            sql.bindKey(update, 4, key);
            return update.executeUpdate() == 1;
        }
    }

    private @Nullable IdempotencyRecord selectLive(Connection connection, IdempotencyKey key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(selectLive)) {
            sql.bindKey(select, 1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? toRecord(key, row) : null;
            }
        }
    }

    /**
     * The record of a live row.
     *
     * @throws SQLDataException when the row holds values this store does not write
     */
    private static IdempotencyRecord toRecord(IdempotencyKey key, ResultSet row) throws SQLException {
        try {
            return decode(key, row);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new SQLDataException("the idempotency row is not one this store wrote", e);
        }
    }

    private static IdempotencyRecord decode(IdempotencyKey key, ResultSet row) throws SQLException {
        String status = row.getString(1);
        Fingerprint fingerprint = Fingerprint.ofHex(row.getString(2));
        OwnerToken owner = new OwnerToken(row.getString(3));
        Duration expiresIn = Duration.ofMillis(row.getLong(4));
        return switch (status) {
            case "P" -> new IdempotencyRecord(key, RecordStatus.IN_PROGRESS, fingerprint, owner, expiresIn, null);
            case "C" -> new IdempotencyRecord(key, RecordStatus.COMPLETED, fingerprint, owner, expiresIn, response(row));
            default -> throw new IllegalStateException("unknown stored status " + status);
        };
    }

    /** The stored response of a COMPLETED row, or null when it was not kept (response_status NULL). */
    private static @Nullable StoredResponse response(ResultSet row) throws SQLException {
        int status = row.getInt(5);
        if (row.wasNull()) {
            return null;
        }
        String headers = row.getString(6);
        byte[] body = row.getBytes(7);
        if (headers == null || body == null) {
            throw new IllegalStateException("stored response without headers or body");
        }
        return new StoredResponse(status, HeaderLines.decode(headers), body);
    }
}
