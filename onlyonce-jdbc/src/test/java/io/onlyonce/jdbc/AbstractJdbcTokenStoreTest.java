package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The token contract on one database and pool mode, plus what a user sees in the table. */
abstract class AbstractJdbcTokenStoreTest extends AbstractTokenStoreContractTest {

    /** How many tokens the racing threads consume, one after the other. */
    private static final int ROUNDS = 10;

    /** The scratch database of the test class. */
    protected abstract ScratchDatabase database();

    @Override
    protected TokenStore createStore() {
        return new JdbcTokenStore(database().dataSource(), database().dialect());
    }

    @Override
    protected Optional<TokenStore> createUnreachableStore() {
        if (database().mode() != PoolMode.AUTOCOMMIT) {
            return Optional.empty(); // never connects, so the pool's mode changes nothing: run once, on the autocommit suite
        }
        return database().unreachableDataSource().map(dead -> new JdbcTokenStore(dead, database().dialect()));
    }

    /** The columns of one token row. */
    record Row(String status, long expiresAtMs) {
    }

    private Row row(OneTimeToken token) throws Exception {
        return database().query("SELECT status, expires_at_ms FROM onlyonce_token WHERE id = ?",
                r -> new Row(r.getString(1), r.getLong(2)), token.id()).get(0);
    }

    @Test
    void rowLivesForTheTtlOnTheServersClockAndFollowsTheLifecycle() throws Exception {
        OneTimeToken token = newToken(Duration.ofDays(3));
        long before = database().serverNow();
        assertThat(store.save(token, TTL)).isTrue();
        long after = database().serverNow();

        Row row = row(token);
        assertThat(row.status()).isEqualTo("CREATED");
        assertThat(row.expiresAtMs()).as("server time + ttl, not the signed expiry")
                .isBetween(before + TTL.toMillis(), after + TTL.toMillis());
        assertThat(store.consume(token)).isTrue();
        assertThat(row(token).status()).isEqualTo("CONSUMED");
        assertThat(store.restore(token)).isTrue();
        assertThat(row(token)).isEqualTo(new Row("CREATED", row.expiresAtMs()));
    }

    @Test
    void savingAgainDoesNotReviveAConsumedToken() throws Exception {
        OneTimeToken token = saved(TTL);
        long expiresAt = row(token).expiresAtMs();
        assertThat(store.consume(token)).isTrue();
        assertThat(store.save(token, TTL.multipliedBy(2))).isTrue();
        assertThat(store.consume(token)).isFalse();
        assertThat(row(token)).isEqualTo(new Row("CONSUMED", expiresAt));
    }

    @Test
    void sixtyFourThreadsConsumingEachTokenLeaveExactlyOneWinnerWhateverThePoolsIsolation() throws Exception {
        IsolationProbe probe = new IsolationProbe();
        JdbcTokenStore probed = new JdbcTokenStore(probe.wrap(database().dataSource()), database().dialect());
        List<OneTimeToken> tokens = IntStream.range(0, ROUNDS).mapToObj(i -> saved(TTL)).toList();

        List<String> consumed = Calls.race(THREADS, ROUNDS, round -> {
            OneTimeToken token = tokens.get(round);
            return probed.consume(token) ? token.id() : "";
        }).allSucceeded();

        assertThat(consumed).filteredOn(id -> !id.isEmpty()).as("the token of each success")
                .containsExactlyInAnyOrderElementsOf(tokens.stream().map(OneTimeToken::id).toList());
        for (OneTimeToken token : tokens) {
            assertThat(row(token).status()).isEqualTo("CONSUMED");
        }
        probe.assertStatementsRanWithin(database().isolation(), database().storeIsolation());
        probe.assertHandedBackAt(database().isolation());
    }

    @Test
    void aFailedStatementHandsItsConnectionBackAtThePoolsIsolation() throws Exception {
        OneTimeToken token = saved(TTL);
        IsolationProbe probe = new IsolationProbe();
        ExecutionCounter failing = new ExecutionCounter("UPDATE", earlier -> {
            throw new SQLException("injected", "23502");
        });
        JdbcTokenStore probed = new JdbcTokenStore(probe.wrap(failing.wrap(database().dataSource())), database().dialect());

        assertThatThrownBy(() -> probed.consume(token)).isInstanceOf(StoreUnavailableException.class);
        assertThat(failing.executions()).isEqualTo(1);
        assertThat(probe.changes()).as("no conflict, so no isolation change").isZero();
        probe.assertStatementsRanAt(database().isolation());
        probe.assertHandedBackAt(database().isolation());
        assertThat(store.consume(token)).isTrue();
    }

    @Test
    void nonPositiveTtlIsRefused() {
        assertThatThrownBy(() -> store.save(newToken(TTL), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void purgeExpiredDeletesExactlyTheExpiredTokensInBatchesEachCommittedOnItsOwn() throws Exception {
        database().update("DELETE FROM onlyonce_token");
        for (int i = 0; i < 12; i++) {
            OneTimeToken token = saved(SHORT);
            if (i % 3 == 0) {
                assertThat(store.consume(token)).isTrue();
            }
        }
        List<OneTimeToken> live = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            live.add(saved(TTL));
        }
        elapse(SHORT.plusMillis(100));

        List<Long> rowsSeenByOthers = new ArrayList<>();
        ExecutionCounter deletes = new ExecutionCounter("DELETE",
                earlier -> rowsSeenByOthers.add(database().queryLong("SELECT COUNT(*) FROM onlyonce_token")));
        JdbcTokenStore counted = new JdbcTokenStore(deletes.wrap(database().dataSource()), database().dialect());
        assertThat(counted.purgeExpired(5)).isEqualTo(12);
        assertThat(deletes.executions()).as("batches of 5, 5 and 2").isEqualTo(3);
        assertThat(rowsSeenByOthers).as("each batch committed before the next").containsExactly(15L, 10L, 5L);
        assertThat(database().queryLong("SELECT COUNT(*) FROM onlyonce_token")).isEqualTo(3);
        for (OneTimeToken token : live) {
            assertThat(store.consume(token)).isTrue();
        }
    }
}
