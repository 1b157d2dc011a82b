package io.onlyonce.jdbc;

import io.onlyonce.jdbc.sql.JdbcDialect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.jdbc.sql.Jdbc;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.token.OneTimeToken;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Serialization failures and deadlocks, injected in front of a real H2 database: the statement is
 * run again, a bounded number of times, and never inside a joined transaction.
 */
class JdbcRetryTest {

    @RegisterExtension
    static final ScratchDatabase H2 = ScratchDatabase.h2();

    private static IdempotencyKey key() {
        return new IdempotencyKey("retry", "key-" + UUID.randomUUID());
    }

    /** Wraps the database so that the first {@code failures} INSERTs fail with {@code state} and {@code code}. */
    private static ExecutionCounter failingInserts(int failures, String state, int code) {
        return new ExecutionCounter("INSERT", earlier -> {
            if (earlier < failures) {
                throw new SQLException("injected", state, code);
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"40001, 0", "40P01, 0", "40001, 1213", "HY000, 1213", "HY000, 1020", "90131, 90131"})
    void aSerializationFailureOrDeadlockIsRunAgain(String state, int code) {
        ExecutionCounter inserts = failingInserts(2, state, code);
        JdbcIdempotencyStore store = new JdbcIdempotencyStore(inserts.wrap(H2.dataSource()), JdbcDialect.H2);
        IdempotencyKey key = key();
        assertThat(store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(inserts.executions()).isEqualTo(3);
        assertThat(store.find(key)).isPresent();
    }

    @Test
    void retriesAreBoundedAndThenTheStoreIsUnavailable() {
        ExecutionCounter inserts = failingInserts(Integer.MAX_VALUE, "40001", 0);
        JdbcTokenStore store = new JdbcTokenStore(inserts.wrap(H2.dataSource()), JdbcDialect.H2);
        OneTimeToken token = new OneTimeToken("BBBBBBBBBBBBBBBBBBBBBA", Instant.now());
        assertThatThrownBy(() -> store.save(token, Duration.ofMinutes(1)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("token save")
                .cause().isInstanceOf(SQLException.class).hasMessage("injected");
        assertThat(inserts.executions()).isEqualTo(Jdbc.MAX_ATTEMPTS);
    }

    @ParameterizedTest
    @CsvSource({"08006, 0", "23502, 0", "HY000, 1205", "57014, 0"})
    void otherFailuresAreNotRunAgain(String state, int code) {
        ExecutionCounter inserts = failingInserts(1, state, code);
        JdbcWindowStore store = new JdbcWindowStore(inserts.wrap(H2.dataSource()), JdbcDialect.H2);
        assertThatThrownBy(() -> store.hit(Fingerprint.of(UUID.randomUUID().toString()), Duration.ofSeconds(1)))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(inserts.executions()).isEqualTo(1);
    }

    @Test
    void aJoinedTransactionIsNeverRunAgain() {
        ExecutionCounter inserts = failingInserts(1, "40001", 0);
        DataSource failing = inserts.wrap(H2.dataSource());
        JdbcIdempotencyStore joined = new JdbcIdempotencyStore(new TransactionAwareDataSourceProxy(failing), JdbcDialect.H2,
                JdbcStoreConfig.defaults().withJoinTransactions(true));
        IdempotencyKey key = key();
        assertThatThrownBy(() -> new TransactionTemplate(new DataSourceTransactionManager(failing))
                .executeWithoutResult(tx -> joined.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30))))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(inserts.executions()).isEqualTo(1);
        assertThat(new JdbcIdempotencyStore(H2.dataSource(), JdbcDialect.H2).find(key)).isEmpty();
    }
}
