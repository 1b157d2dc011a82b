package io.onlyonce.jdbc;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.jdbc.internal.HeaderLines;
import io.onlyonce.jdbc.internal.IdempotencySql;
import io.onlyonce.jdbc.internal.Jdbc;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@link IdempotencyStore} on a relational database, one row per key in the idempotency table of
 * {@link JdbcSchema}. Thread-safe.
 *
 * <p>A claim never checks and then inserts. It inserts the row unless the key is taken (without an
 * error that would abort the caller's transaction); if nothing was inserted, one conditional UPDATE
 * takes over a row whose {@code expires_at_ms <= now} (a retention or a lease that has passed); if
 * that changes nothing either, the live row is read and returned as {@link ClaimResult.Existing}.
 * Should the row vanish or expire between these steps (released or purged concurrently), the claim
 * starts over, a bounded number of times. Complete and release are each one UPDATE or DELETE that
 * matches only the holder's unexpired IN_PROGRESS row.
 *
 * <p>Times have millisecond precision. See the {@link io.onlyonce.jdbc package documentation} for
 * connections, transactions and failures.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    private static final int MAX_CLAIM_ATTEMPTS = 16;

    private final DataSource dataSource;
    private final boolean joinTransactions;
    private final IdempotencySql sql;

    /** A store on the default table {@code onlyonce_idempotency}. */
    public JdbcIdempotencyStore(DataSource dataSource, JdbcDialect dialect) {
        this(dataSource, dialect, JdbcStoreConfig.defaults());
    }

    /** A store on {@link JdbcStoreConfig#idempotencyTable()}. */
    public JdbcIdempotencyStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.joinTransactions = config.joinTransactions();
        this.sql = new IdempotencySql(Objects.requireNonNull(dialect, "dialect"), config.idempotencyTable());
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Instant now, Duration lease) {
        OwnerToken owner = OwnerToken.random();
        long nowMillis = now.toEpochMilli();
        long expiresAtMillis = now.plus(lease).toEpochMilli();
        return Jdbc.run(dataSource, joinTransactions, "claim", connection -> {
            for (int attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
                if (insert(connection, key, fingerprint, owner, nowMillis, expiresAtMillis)
                        || takeOver(connection, key, fingerprint, owner, nowMillis, expiresAtMillis)) {
                    return new ClaimResult.Claimed(owner);
                }
                IdempotencyRecord live = selectLive(connection, key, nowMillis);
                if (live != null) {
                    return new ClaimResult.Existing(live);
                }
            }
            throw new StoreUnavailableException("claim", new IllegalStateException(
                    "the record kept changing under the claim for " + MAX_CLAIM_ATTEMPTS + " attempts"));
        });
    }

    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, StoredResponse response, Instant now, Duration retention) {
        long expiresAtMillis = now.plus(retention).toEpochMilli();
        return Jdbc.run(dataSource, joinTransactions, "complete", connection -> {
            try (PreparedStatement update = connection.prepareStatement(sql.complete())) {
                update.setLong(1, expiresAtMillis);
                update.setInt(2, response.status());
                update.setString(3, HeaderLines.encode(response.headers()));
                update.setBytes(4, response.body());
                int index = sql.bindKey(update, 5, key);
                update.setString(index, owner.value());
                update.setLong(index + 1, now.toEpochMilli());
                return update.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner, Instant now) {
        return Jdbc.run(dataSource, joinTransactions, "release", connection -> {
            try (PreparedStatement delete = connection.prepareStatement(sql.release())) {
                int index = sql.bindKey(delete, 1, key);
                delete.setString(index, owner.value());
                delete.setLong(index + 1, now.toEpochMilli());
                return delete.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key, Instant now) {
        return Jdbc.run(dataSource, joinTransactions, "find",
                connection -> Optional.ofNullable(selectLive(connection, key, now.toEpochMilli())));
    }

    /**
     * Deletes the records whose lease or retention ended at or before {@code now}, at most
     * {@code batchSize} rows per statement, until a statement deletes fewer. Run it from a
     * scheduler; the store is correct without it, expired rows only take space.
     *
     * @return how many records were deleted
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    public int purgeExpired(Instant now, int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive");
        }
        return Jdbc.run(dataSource, joinTransactions, "purge",
                connection -> sql.expiredRows().purge(connection, now.toEpochMilli(), batchSize));
    }

    private boolean insert(Connection connection, IdempotencyKey key, Fingerprint fingerprint, OwnerToken owner,
            long nowMillis, long expiresAtMillis) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(sql.insert().sql())) {
            int index = sql.bindInsertKey(insert, 1, key);
            insert.setString(index, fingerprint.hex());
            insert.setString(index + 1, owner.value());
            insert.setLong(index + 2, expiresAtMillis);
            insert.setLong(index + 3, nowMillis);
            return sql.insert().execute(insert);
        }
    }

    private boolean takeOver(Connection connection, IdempotencyKey key, Fingerprint fingerprint, OwnerToken owner,
            long nowMillis, long expiresAtMillis) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(sql.takeOver())) {
            update.setString(1, fingerprint.hex());
            update.setString(2, owner.value());
            update.setLong(3, expiresAtMillis);
            update.setLong(4, nowMillis);
            int index = sql.bindKey(update, 5, key);
            update.setLong(index, nowMillis);
            return update.executeUpdate() == 1;
        }
    }

    private @Nullable IdempotencyRecord selectLive(Connection connection, IdempotencyKey key, long nowMillis)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql.selectLive())) {
            int index = sql.bindKey(select, 1, key);
            select.setLong(index, nowMillis);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? toRecord(key, row) : null;
            }
        }
    }

    private static IdempotencyRecord toRecord(IdempotencyKey key, ResultSet row) throws SQLException {
        String status = row.getString(1);
        Fingerprint fingerprint = Fingerprint.ofHex(row.getString(2));
        OwnerToken owner = new OwnerToken(row.getString(3));
        Instant expiresAt = Instant.ofEpochMilli(row.getLong(4));
        return switch (status) {
            case "P" -> new IdempotencyRecord(key, RecordStatus.IN_PROGRESS, fingerprint, owner, expiresAt, null);
            case "C" -> new IdempotencyRecord(key, RecordStatus.COMPLETED, fingerprint, owner, expiresAt,
                    new StoredResponse(row.getInt(5), HeaderLines.decode(row.getString(6)), row.getBytes(7)));
            default -> throw new IllegalStateException("unknown stored status " + status);
        };
    }
}
