package io.onlyonce.spring.autoconfigure;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.JdbcIdempotencyStore;
import io.onlyonce.jdbc.JdbcStoreConfig;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import io.onlyonce.spring.method.TransactionCompletion;

/**
 * The JDBC idempotency store of a Spring application. With {@code onlyonce.jdbc.join-transaction},
 * a call made while a Spring transaction holds a connection of the application's DataSource goes
 * through that connection, inside that transaction (claim and completion commit or roll back with
 * the business data); every other call, and every call without it, commits on a connection of its
 * own. A store that does not join, called inside such a transaction, borrows a second connection
 * while the transaction holds the first: it says so once, with the pool size when it knows it.
 */
public final class TransactionAwareJdbcIdempotencyStore implements IdempotencyStore {

    private static final Logger log = LoggerFactory.getLogger(TransactionAwareJdbcIdempotencyStore.class);

    private final DataSource dataSource;
    private final JdbcIdempotencyStore own;
    private final @Nullable JdbcIdempotencyStore joined;
    private final @Nullable Integer poolSize;
    private final AtomicBoolean toldOfSecondConnection = new AtomicBoolean();

    public TransactionAwareJdbcIdempotencyStore(DataSource dataSource, JdbcDialect dialect, JdbcStoreConfig config,
            boolean join, @Nullable Integer poolSize) {
        this.dataSource = dataSource;
        this.own = new JdbcIdempotencyStore(dataSource, dialect, config.withJoinTransactions(false));
        this.joined = join
                ? new JdbcIdempotencyStore(new TransactionAwareDataSourceProxy(dataSource), dialect,
                        config.withJoinTransactions(true))
                : null;
        this.poolSize = poolSize;
    }

    /** Whether this store's calls on this thread now go through the active transaction's connection. */
    public boolean joinsCurrentTransaction() {
        return joined != null && inTransaction();
    }

    /**
     * Whether a transaction that will commit this store's writes holds a connection of the
     * DataSource: an actual, read-write transaction with synchronisation, not yet completing (a
     * callback after its commit or rollback runs on resources that nothing commits any more).
     */
    private boolean inTransaction() {
        return TransactionSynchronizationManager.getResource(dataSource) != null
                && TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.isSynchronizationActive()
                && !TransactionSynchronizationManager.isCurrentTransactionReadOnly()
                && !TransactionCompletion.completing();
    }

    private IdempotencyStore current() {
        if (!inTransaction()) {
            return own;
        }
        if (joined != null) {
            return joined;
        }
        if (toldOfSecondConnection.compareAndSet(false, true)) {
            log.warn("OnlyOnce's JDBC store runs inside a transaction on the same DataSource and takes a second"
                    + " connection for its own statements{}: under load every request then holds two connections,"
                    + " and a pool smaller than twice the concurrent requests starves. Set"
                    + " onlyonce.jdbc.join-transaction=true to use the transaction's own connection.",
                    poolSize == null ? "" : " (pool of " + poolSize + ")");
        }
        return own;
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        return current().claim(key, fingerprint, lease);
    }

    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
        return current().complete(key, owner, response, retention);
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner) {
        return current().release(key, owner);
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return current().find(key);
    }

    /** See {@link JdbcIdempotencyStore#purgeExpired}; always on a connection of its own. */
    public int purgeExpired(int batchSize) {
        return own.purgeExpired(batchSize);
    }
}
