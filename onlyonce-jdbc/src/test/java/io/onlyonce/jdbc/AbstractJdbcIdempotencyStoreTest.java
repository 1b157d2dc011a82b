package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import io.onlyonce.store.RecordStatus;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import javax.sql.DataSource;
import java.sql.SQLException;
import java.sql.Connection;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The idempotency contract on one database, plus what a user sees in the table: the columns of a
 * row, the purge, and claims inside the caller's transaction.
 */
abstract class AbstractJdbcIdempotencyStoreTest extends AbstractIdempotencyStoreContractTest {

    private static final String ROW = "SELECT status, fingerprint, owner, expires_at_ms, response_status, response_headers,"
            + " response_body, created_at_ms FROM onlyonce_idempotency WHERE scope = ? AND idem_key = ?";

    /** The scratch database of the test class. */
    protected abstract ScratchDatabase database();

    @Override
    protected IdempotencyStore createStore() {
        return jdbcStore();
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() {
        return database().unreachableDataSource().map(dead -> new JdbcIdempotencyStore(dead, database().dialect()));
    }

    private JdbcIdempotencyStore jdbcStore() {
        return new JdbcIdempotencyStore(database().dataSource(), database().dialect());
    }

    /** The columns of one idempotency row. */
    record Row(String status, String fingerprint, String owner, long expiresAtMs, @Nullable Integer responseStatus,
            @Nullable String responseHeaders, byte @Nullable [] responseBody, long createdAtMs) {
    }

    private Optional<Row> row(IdempotencyKey key) throws Exception {
        List<Row> rows = database().query(ROW, r -> new Row(r.getString(1), r.getString(2), r.getString(3), r.getLong(4),
                r.getObject(5) == null ? null : r.getInt(5), r.getString(6), r.getBytes(7), r.getLong(8)),
                key.scope(), key.name());
        return rows.stream().findFirst();
    }

    private OwnerToken claim(IdempotencyKey key, Fingerprint fingerprint, Instant now, Duration lease) {
        ClaimResult result = store.claim(key, fingerprint, now, lease);
        assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
        return ((ClaimResult.Claimed) result).owner();
    }

    @Test
    void claimWritesAnInProgressRow() throws Exception {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claim(key, fingerprint("a"), now, LEASE);

        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("P");
        assertThat(row.fingerprint()).isEqualTo(fingerprint("a").hex());
        assertThat(row.owner()).isEqualTo(owner.value());
        assertThat(row.expiresAtMs()).isEqualTo(now.plus(LEASE).toEpochMilli());
        assertThat(row.createdAtMs()).isEqualTo(now.toEpochMilli());
        assertThat(row.responseStatus()).isNull();
        assertThat(row.responseHeaders()).isNull();
        assertThat(row.responseBody()).isNull();
    }

    @Test
    void completeWritesTheResponseIntoItsColumns() throws Exception {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claim(key, fingerprint("a"), now, LEASE);
        assertThat(store.complete(key, owner, response(), now.plusMillis(7), RETENTION)).isTrue();

        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("C");
        assertThat(row.owner()).isEqualTo(owner.value());
        assertThat(row.expiresAtMs()).isEqualTo(now.plusMillis(7).plus(RETENTION).toEpochMilli());
        assertThat(row.createdAtMs()).isEqualTo(now.toEpochMilli());
        assertThat(row.responseStatus()).isEqualTo(201);
        assertThat(row.responseHeaders()).isEqualTo("Location: /orders/42\nContent-Type: application/json");
        assertThat(row.responseBody()).containsExactly(response().body());
    }

    @Test
    void takeOverRewritesTheWholeRow() throws Exception {
        IdempotencyKey key = key();
        Instant start = clock.instant();
        OwnerToken first = claim(key, fingerprint("a"), start, LEASE);
        assertThat(store.complete(key, first, response(), start, Duration.ofSeconds(10))).isTrue();

        Instant later = start.plusSeconds(10);
        OwnerToken second = claim(key, fingerprint("b"), later, LEASE);
        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("P");
        assertThat(row.fingerprint()).isEqualTo(fingerprint("b").hex());
        assertThat(row.owner()).isEqualTo(second.value());
        assertThat(row.expiresAtMs()).isEqualTo(later.plus(LEASE).toEpochMilli());
        assertThat(row.createdAtMs()).isEqualTo(later.toEpochMilli());
        assertThat(row.responseStatus()).isNull();
        assertThat(row.responseHeaders()).isNull();
        assertThat(row.responseBody()).isNull();
    }

    @Test
    void keysDifferingOnlyInCaseOrTrailingSpacesAreDistinct() {
        Instant now = clock.instant();
        String id = UUID.randomUUID().toString();
        for (IdempotencyKey key : List.of(
                new IdempotencyKey("tenant:" + id, "Key-A"),
                new IdempotencyKey("tenant:" + id, "key-a"),
                new IdempotencyKey("Tenant:" + id, "Key-A"),
                new IdempotencyKey("tenant:" + id + " ", "Key-A"),
                new IdempotencyKey("tenant:" + id + "  ", "Key-A"))) {
            claim(key, fingerprint("a"), now, LEASE);
        }
    }

    @Test
    void unicodeEmptyAndPaddedHeaderValuesRoundTrip() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claim(key, fingerprint("a"), now, LEASE);
        StoredResponse response = new StoredResponse(200, List.of(
                new StoredResponse.Header("X-Name", "naïve 订单 ✓"),
                new StoredResponse.Header("X-Empty", ""),
                new StoredResponse.Header("X-Padded", "  two spaces: then a colon  "),
                new StoredResponse.Header("X-Empty", "")), new byte[0]);
        assertThat(store.complete(key, owner, response, now, RETENTION)).isTrue();
        assertThat(store.find(key, now).orElseThrow().response()).isEqualTo(response);
    }

    @Test
    void purgeExpiredDeletesExactlyTheExpiredRowsInBatches() throws Exception {
        database().update("DELETE FROM onlyonce_idempotency");
        Instant start = clock.instant();
        Duration brief = Duration.ofSeconds(1);
        List<IdempotencyKey> live = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            IdempotencyKey key = key();
            OwnerToken owner = claim(key, fingerprint("a"), start, brief);
            if (i % 2 == 0) {
                assertThat(store.complete(key, owner, response(), start, brief)).isTrue();
            }
        }
        for (int i = 0; i < 5; i++) {
            IdempotencyKey key = key();
            OwnerToken owner = claim(key, fingerprint("a"), start, LEASE);
            if (i % 2 == 0) {
                assertThat(store.complete(key, owner, response(), start, RETENTION)).isTrue();
            }
            live.add(key);
        }

        ExecutionCounter deletes = new ExecutionCounter("DELETE");
        JdbcIdempotencyStore counted = new JdbcIdempotencyStore(deletes.wrap(database().dataSource()), database().dialect());
        Instant later = start.plus(brief);
        assertThat(counted.purgeExpired(later, 10)).isEqualTo(25);
        assertThat(deletes.executions()).as("batches of 10, 10 and 5").isEqualTo(3);

        assertThat(database().queryLong("SELECT COUNT(*) FROM onlyonce_idempotency")).isEqualTo(5);
        for (IdempotencyKey key : live) {
            assertThat(store.find(key, later)).isPresent();
        }
        assertThat(counted.purgeExpired(later, 10)).isZero();
    }

    @Test
    void claimInsideAnOpenTransactionLeavesItUsableAndCommits() throws Exception {
        database().update("CREATE TABLE IF NOT EXISTS user_orders (id VARCHAR(64) PRIMARY KEY)");
        Instant now = clock.instant();
        IdempotencyKey taken = key();
        claim(taken, fingerprint("a"), now, LEASE);
        IdempotencyKey fresh = key();
        String firstOrder = UUID.randomUUID().toString();
        String secondOrder = UUID.randomUUID().toString();

        JdbcTemplate jdbc = new JdbcTemplate(database().dataSource());
        JdbcIdempotencyStore inTransaction = new JdbcIdempotencyStore(
                new TransactionAwareDataSourceProxy(database().dataSource()), database().dialect(),
                JdbcStoreConfig.defaults().withJoinTransactions(true));
        new TransactionTemplate(new DataSourceTransactionManager(database().dataSource())).executeWithoutResult(tx -> {
            jdbc.update("INSERT INTO user_orders (id) VALUES (?)", firstOrder);
            assertThat(inTransaction.claim(taken, fingerprint("a"), now, LEASE)).isInstanceOf(ClaimResult.Existing.class);
            assertThat(inTransaction.claim(fresh, fingerprint("a"), now, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            jdbc.update("INSERT INTO user_orders (id) VALUES (?)", secondOrder);
        });

        assertThat(database().queryLong("SELECT COUNT(*) FROM user_orders WHERE id IN (?, ?)", firstOrder, secondOrder))
                .isEqualTo(2);
        assertThat(store.find(fresh, now)).isPresent();
    }

    @Test
    void writesAreDurableWhenThePoolHandsOutConnectionsWithoutAutocommit() throws Exception {
        Instant now = clock.instant();
        IdempotencyKey key = key();
        DataSource noAutocommit = new DelegatingDataSource(database().dataSource()) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = super.getConnection();
                connection.setAutoCommit(false);
                return connection;
            }
        };
        JdbcIdempotencyStore manual = new JdbcIdempotencyStore(noAutocommit, database().dialect());
        ClaimResult claim = manual.claim(key, fingerprint("a"), now, LEASE);
        assertThat(claim).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(store.find(key, now)).as("visible to another connection: committed").isPresent();
        assertThat(manual.complete(key, ((ClaimResult.Claimed) claim).owner(), response(), now, RETENTION)).isTrue();
        assertThat(store.find(key, now).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void claimInsideATransactionRollsBackWithIt() {
        Instant now = clock.instant();
        IdempotencyKey key = key();
        JdbcIdempotencyStore inTransaction = new JdbcIdempotencyStore(
                new TransactionAwareDataSourceProxy(database().dataSource()), database().dialect(),
                JdbcStoreConfig.defaults().withJoinTransactions(true));
        new TransactionTemplate(new DataSourceTransactionManager(database().dataSource())).executeWithoutResult(tx -> {
            assertThat(inTransaction.claim(key, fingerprint("a"), now, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            tx.setRollbackOnly();
        });
        assertThat(store.find(key, now)).isEmpty();
    }

    @Test
    void schemaCanBeAppliedAgainAndTheDialectIsDetected() {
        IdempotencyKey key = key();
        claim(key, fingerprint("a"), clock.instant(), LEASE);
        JdbcSchema.apply(database().dataSource(), database().dialect());
        assertThat(store.find(key, clock.instant())).isPresent();
        assertThat(JdbcDialect.detect(database().dataSource())).isEqualTo(database().dialect());
    }
}
