package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The token contract on one database, plus what a user sees in the table. */
abstract class AbstractJdbcTokenStoreTest extends AbstractTokenStoreContractTest {

    /** The scratch database of the test class. */
    protected abstract ScratchDatabase database();

    @Override
    protected TokenStore createStore() {
        return new JdbcTokenStore(database().dataSource(), database().dialect());
    }

    @Override
    protected Optional<TokenStore> createUnreachableStore() {
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
    void rowFollowsTheTokenLifecycle() throws Exception {
        OneTimeToken token = newToken(Duration.ofMinutes(10));
        Instant now = clock.instant();
        store.save(token, now);
        assertThat(row(token)).isEqualTo(new Row("CREATED", token.expiresAt().toEpochMilli()));
        assertThat(store.consume(token, now)).isTrue();
        assertThat(row(token).status()).isEqualTo("CONSUMED");
        assertThat(store.restore(token, now)).isTrue();
        assertThat(row(token).status()).isEqualTo("CREATED");
    }

    @Test
    void savingAgainDoesNotReviveAConsumedToken() throws Exception {
        OneTimeToken token = newToken(Duration.ofMinutes(10));
        Instant now = clock.instant();
        store.save(token, now);
        assertThat(store.consume(token, now)).isTrue();
        store.save(token, now);
        assertThat(store.consume(token, now)).isFalse();
        assertThat(row(token).status()).isEqualTo("CONSUMED");
    }

    @Test
    void purgeExpiredDeletesExactlyTheExpiredTokensInBatches() throws Exception {
        database().update("DELETE FROM onlyonce_token");
        Instant now = clock.instant();
        for (int i = 0; i < 12; i++) {
            OneTimeToken token = newToken(Duration.ofSeconds(1));
            store.save(token, now);
            if (i % 3 == 0) {
                assertThat(store.consume(token, now)).isTrue();
            }
        }
        List<OneTimeToken> live = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            OneTimeToken token = newToken(Duration.ofMinutes(10));
            store.save(token, now);
            live.add(token);
        }

        ExecutionCounter deletes = new ExecutionCounter("DELETE");
        JdbcTokenStore counted = new JdbcTokenStore(deletes.wrap(database().dataSource()), database().dialect());
        Instant later = now.plusSeconds(1);
        assertThat(counted.purgeExpired(later, 5)).isEqualTo(12);
        assertThat(deletes.executions()).as("batches of 5, 5 and 2").isEqualTo(3);
        assertThat(database().queryLong("SELECT COUNT(*) FROM onlyonce_token")).isEqualTo(3);
        for (OneTimeToken token : live) {
            assertThat(store.consume(token, later)).isTrue();
        }
    }
}
