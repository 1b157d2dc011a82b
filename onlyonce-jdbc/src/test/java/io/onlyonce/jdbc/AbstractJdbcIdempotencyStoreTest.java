package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import io.onlyonce.jdbc.sql.ServerClock;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The idempotency contract on one database and pool mode, plus what a user sees in the table: the
 * columns of a row on the server's clock, the purge, and claims inside the caller's transaction.
 */
abstract class AbstractJdbcIdempotencyStoreTest extends AbstractIdempotencyStoreContractTest {

    private static final String ROW = "SELECT status, fingerprint, owner, expires_at_ms, response_status, response_headers,"
            + " response_body, created_at_ms FROM onlyonce_idempotency WHERE scope = ? AND idem_key = ?";

    /** How many keys the racing threads claim, one after the other. */
    private static final int ROUNDS = 10;

    /** The scratch database of the test class. */
    protected abstract ScratchDatabase database();

    @Override
    protected IdempotencyStore createStore() {
        return newStore();
    }

    @Override
    protected IdempotencyStore createSecondClient() {
        return new JdbcIdempotencyStore(database().secondDataSource(), database().dialect());
    }

    @Override
    protected Optional<IdempotencyStore> createUnreachableStore() {
        if (database().mode() != PoolMode.AUTOCOMMIT) {
            return Optional.empty(); // never connects, so the pool's mode changes nothing: run once, on the autocommit suite
        }
        return database().unreachableDataSource().map(dead -> new JdbcIdempotencyStore(dead, database().dialect()));
    }

    private JdbcIdempotencyStore jdbcStore() {
        return (JdbcIdempotencyStore) store;
    }

    private JdbcIdempotencyStore newStore() {
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

    private OwnerToken claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        return claimed(store, key, fingerprint, lease);
    }

    @Test
    void claimWritesAnInProgressRowOnTheServersClock() throws Exception {
        IdempotencyKey key = key();
        long before = database().serverNow();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        long after = database().serverNow();

        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("P");
        assertThat(row.fingerprint()).isEqualTo(fingerprint("a").hex());
        assertThat(row.owner()).isEqualTo(owner.value());
        assertThat(row.createdAtMs()).isBetween(before, after);
        assertThat(row.expiresAtMs()).isEqualTo(row.createdAtMs() + LEASE.toMillis());
        assertThat(row.responseStatus()).isNull();
        assertThat(row.responseHeaders()).isNull();
        assertThat(row.responseBody()).isNull();
    }

    @Test
    void completeWritesTheResponseIntoItsColumns() throws Exception {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        long createdAt = row(key).orElseThrow().createdAtMs();
        long before = database().serverNow();
        assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();
        long after = database().serverNow();

        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("C");
        assertThat(row.owner()).isEqualTo(owner.value());
        assertThat(row.expiresAtMs()).isBetween(before + RETENTION.toMillis(), after + RETENTION.toMillis());
        assertThat(row.createdAtMs()).isEqualTo(createdAt);
        assertThat(row.responseStatus()).isEqualTo(201);
        assertThat(row.responseHeaders()).isEqualTo("Location: /orders/42\nContent-Type: application/json");
        assertThat(row.responseBody()).containsExactly(response().body());
    }

    @Test
    void completeWithoutAResponseLeavesACompletedRowWithNullResponseColumns() throws Exception {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, owner, null, RETENTION)).isTrue();

        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("C");
        assertThat(row.owner()).isEqualTo(owner.value());
        assertThat(row.responseStatus()).isNull();
        assertThat(row.responseHeaders()).isNull();
        assertThat(row.responseBody()).isNull();
        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.response()).isNull();
    }

    @Test
    void expiresInIsTheServersTimeLeft() throws Exception {
        IdempotencyKey key = key();
        claim(key, fingerprint("a"), LEASE);
        long before = database().serverNow();
        Duration expiresIn = store.find(key).orElseThrow().expiresIn();
        long after = database().serverNow();
        long expiresAt = row(key).orElseThrow().expiresAtMs();
        assertThat(expiresIn.toMillis()).isBetween(expiresAt - after, expiresAt - before);
    }

    @Test
    void takeOverRewritesTheWholeRow() throws Exception {
        IdempotencyKey key = key();
        OwnerToken first = claim(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, first, response(), SHORT)).isTrue();
        elapse(SHORT.plusMillis(100));

        long before = database().serverNow();
        OwnerToken second = claim(key, fingerprint("b"), LEASE);
        long after = database().serverNow();
        Row row = row(key).orElseThrow();
        assertThat(row.status()).isEqualTo("P");
        assertThat(row.fingerprint()).isEqualTo(fingerprint("b").hex());
        assertThat(row.owner()).isEqualTo(second.value());
        assertThat(row.createdAtMs()).isBetween(before, after);
        assertThat(row.expiresAtMs()).isEqualTo(row.createdAtMs() + LEASE.toMillis());
        assertThat(row.responseStatus()).isNull();
        assertThat(row.responseHeaders()).isNull();
        assertThat(row.responseBody()).isNull();
    }

    @Test
    void aRowIsExpiredOnceTheServersClockReachesItsExpiry() throws Exception {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        assertThat(database().update("UPDATE onlyonce_idempotency SET expires_at_ms = "
                + ServerClock.nowMillis(database().dialect())
                + " WHERE scope = ? AND idem_key = ?", key.scope(), key.name())).isEqualTo(1);

        assertThat(store.find(key)).isEmpty();
        assertThat(store.complete(key, owner, response(), RETENTION)).isFalse();
        assertThat(store.release(key, owner)).isFalse();
        OwnerToken next = claim(key, fingerprint("a"), LEASE);
        assertThat(store.find(key).orElseThrow().owner()).isEqualTo(next);
    }

    @Test
    void keysDifferingOnlyInCaseOrTrailingSpacesAreDistinct() {
        String id = UUID.randomUUID().toString();
        for (IdempotencyKey key : List.of(
                new IdempotencyKey("tenant:" + id, "Key-A"),
                new IdempotencyKey("tenant:" + id, "key-a"),
                new IdempotencyKey("Tenant:" + id, "Key-A"),
                new IdempotencyKey("tenant:" + id + " ", "Key-A"),
                new IdempotencyKey("tenant:" + id + "  ", "Key-A"))) {
            claim(key, fingerprint("a"), LEASE);
        }
    }

    @Test
    void unicodeEmptyAndPaddedHeaderValuesRoundTrip() {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        StoredResponse response = new StoredResponse(200, List.of(
                new StoredResponse.Header("X-Name", "naïve 订单 ✓"),
                new StoredResponse.Header("X-Empty", ""),
                new StoredResponse.Header("X-Padded", "  two spaces: then a colon  "),
                new StoredResponse.Header("X-Empty", "")), new byte[0]);
        assertThat(store.complete(key, owner, response, RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().response()).isEqualTo(response);
    }

    @Test
    void responsesOfMegabytesRoundTrip() {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        byte[] body = new byte[3_000_000];
        Arrays.fill(body, (byte) 0xA5);
        List<StoredResponse.Header> headers = new ArrayList<>();
        headers.add(new StoredResponse.Header("Link", "<https://example.com/" + "x".repeat(1_200_000) + ">"));
        headers.add(new StoredResponse.Header("X-Text", "订单 ✓ 😀".repeat(20_000)));
        StoredResponse response = new StoredResponse(200, headers, body);
        assertThat(store.complete(key, owner, response, RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().response()).isEqualTo(response);
    }

    @Test
    void purgeExpiredDeletesExactlyTheExpiredRowsInBatchesEachCommittedOnItsOwn() throws Exception {
        database().update("DELETE FROM onlyonce_idempotency");
        for (int i = 0; i < 25; i++) {
            IdempotencyKey key = key();
            OwnerToken owner = claim(key, fingerprint("a"), SHORT);
            if (i % 2 == 0) {
                assertThat(store.complete(key, owner, response(), SHORT)).isTrue();
            }
        }
        List<IdempotencyKey> live = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            IdempotencyKey key = key();
            OwnerToken owner = claim(key, fingerprint("a"), LEASE);
            if (i % 2 == 0) {
                assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();
            }
            live.add(key);
        }
        elapse(SHORT.plusMillis(100));

        List<Long> rowsSeenByOthers = new ArrayList<>();
        ExecutionCounter deletes = new ExecutionCounter("DELETE",
                earlier -> rowsSeenByOthers.add(database().queryLong("SELECT COUNT(*) FROM onlyonce_idempotency")));
        JdbcIdempotencyStore counted = new JdbcIdempotencyStore(deletes.wrap(database().dataSource()), database().dialect());
        assertThat(counted.purgeExpired(10)).isEqualTo(25);
        assertThat(deletes.executions()).as("batches of 10, 10 and 5").isEqualTo(3);
        assertThat(rowsSeenByOthers).as("each batch committed before the next").containsExactly(30L, 20L, 10L);

        assertThat(database().queryLong("SELECT COUNT(*) FROM onlyonce_idempotency")).isEqualTo(5);
        for (IdempotencyKey key : live) {
            assertThat(store.find(key)).isPresent();
        }
        assertThat(counted.purgeExpired(10)).isZero();
        assertThatThrownBy(() -> counted.purgeExpired(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void purgeNeverDeletesARunningClaim() throws Exception {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        jdbcStore().purgeExpired(1_000);
        assertThat(store.find(key).orElseThrow().owner()).isEqualTo(owner);
        assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();
    }

    @Test
    void nonPositiveDurationsAreRefused() {
        IdempotencyKey key = key();
        assertThatThrownBy(() -> store.claim(key, fingerprint("a"), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        assertThatThrownBy(() -> store.complete(key, owner, response(), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.find(key).orElseThrow().status()).isEqualTo(RecordStatus.IN_PROGRESS);
    }

    @Test
    void aRowThisStoreDidNotWriteIsStoreUnavailable() throws Exception {
        IdempotencyKey key = key();
        claim(key, fingerprint("a"), LEASE);
        database().update("UPDATE onlyonce_idempotency SET fingerprint = 'not hex' WHERE scope = ? AND idem_key = ?",
                key.scope(), key.name());
        assertThatThrownBy(() -> store.find(key)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void claimInsideAnOpenTransactionLeavesItUsableAndCommits() throws Exception {
        database().update("CREATE TABLE IF NOT EXISTS user_orders (id VARCHAR(64) PRIMARY KEY)");
        IdempotencyKey taken = key();
        claim(taken, fingerprint("a"), LEASE);
        IdempotencyKey fresh = key();
        String firstOrder = UUID.randomUUID().toString();
        String secondOrder = UUID.randomUUID().toString();

        JdbcTemplate jdbc = new JdbcTemplate(database().dataSource());
        JdbcIdempotencyStore inTransaction = joined();
        readCommitted().executeWithoutResult(tx -> {
            jdbc.update("INSERT INTO user_orders (id) VALUES (?)", firstOrder);
            assertThat(inTransaction.claim(taken, fingerprint("a"), LEASE)).isInstanceOf(ClaimResult.Existing.class);
            assertThat(inTransaction.claim(fresh, fingerprint("a"), LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            jdbc.update("INSERT INTO user_orders (id) VALUES (?)", secondOrder);
        });

        assertThat(database().queryLong("SELECT COUNT(*) FROM user_orders WHERE id IN (?, ?)", firstOrder, secondOrder))
                .isEqualTo(2);
        assertThat(store.find(fresh)).isPresent();
    }

    @Test
    void claimInsideATransactionRollsBackWithIt() {
        IdempotencyKey key = key();
        JdbcIdempotencyStore inTransaction = joined();
        readCommitted().executeWithoutResult(tx -> {
            assertThat(inTransaction.claim(key, fingerprint("a"), LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            tx.setRollbackOnly();
        });
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void sixtyFourThreadsClaimingEachKeyLeaveExactlyOneClaimWhateverThePoolsIsolation() throws Exception {
        IsolationProbe probe = new IsolationProbe();
        JdbcIdempotencyStore probed = new JdbcIdempotencyStore(probe.wrap(database().dataSource()), database().dialect());
        List<IdempotencyKey> keys = IntStream.range(0, ROUNDS).mapToObj(i -> key()).toList();

        List<ClaimResult> results = Calls.race(THREADS, ROUNDS,
                round -> probed.claim(keys.get(round), fingerprint("a"), LEASE)).allSucceeded();

        List<OwnerToken> claims = results.stream().filter(ClaimResult.Claimed.class::isInstance)
                .map(result -> ((ClaimResult.Claimed) result).owner()).toList();
        assertThat(claims).hasSize(ROUNDS);
        for (IdempotencyKey key : keys) {
            assertThat(claims).contains(new OwnerToken(row(key).orElseThrow().owner()));
        }
        assertThat(results).filteredOn(ClaimResult.Existing.class::isInstance)
                .allSatisfy(result -> assertThat(claims).contains(((ClaimResult.Existing) result).record().owner()));
        probe.assertStatementsRanWithin(database().isolation(), database().storeIsolation());
        probe.assertHandedBackAt(database().isolation());
    }

    @Test
    void aClaimInsideTheCallersTransactionRunsAtItsIsolationAndLeavesItAlone() throws Exception {
        IsolationProbe probe = new IsolationProbe();
        DataSource probed = probe.wrap(database().dataSource());
        IdempotencyKey key = key();
        new TransactionTemplate(new DataSourceTransactionManager(probed)).executeWithoutResult(tx -> assertThat(
                joined(probed).claim(key, fingerprint("a"), LEASE)).isInstanceOf(ClaimResult.Claimed.class));

        assertThat(probe.changes()).as("isolation changes").isZero();
        probe.assertStatementsRanAt(database().isolation());
        assertThat(store.find(key)).isPresent();
    }

    @Test
    void schemaCanBeAppliedAgainAndTheDialectIsDetected() {
        IdempotencyKey key = key();
        claim(key, fingerprint("a"), LEASE);
        JdbcSchema.apply(database().dataSource(), database().dialect());
        assertThat(newStore().find(key)).isPresent();
        assertThat(JdbcDialect.detect(database().dataSource())).isEqualTo(database().dialect());
    }

    @Test
    void bodiesAreBytesNotText() {
        IdempotencyKey key = key();
        OwnerToken owner = claim(key, fingerprint("a"), LEASE);
        byte[] notUtf8 = {(byte) 0xC3, (byte) 0x28, 0, (byte) 0xFF};
        StoredResponse response = StoredResponse.of(200, notUtf8);
        assertThat(store.complete(key, owner, response, RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().response().body()).containsExactly(notUtf8);
    }

    private JdbcIdempotencyStore joined() {
        return joined(database().dataSource());
    }

    /** A store that joins the transaction the caller holds on {@code dataSource}. */
    private JdbcIdempotencyStore joined(DataSource dataSource) {
        return new JdbcIdempotencyStore(new TransactionAwareDataSourceProxy(dataSource), database().dialect(),
                JdbcStoreConfig.defaults().withJoinTransactions(true));
    }

    /** A caller's transaction at READ COMMITTED, as joined transactions must be. */
    private TransactionTemplate readCommitted() {
        TransactionTemplate template = new TransactionTemplate(new DataSourceTransactionManager(database().dataSource()));
        template.setIsolationLevel(TransactionTemplate.ISOLATION_READ_COMMITTED);
        return template;
    }
}
