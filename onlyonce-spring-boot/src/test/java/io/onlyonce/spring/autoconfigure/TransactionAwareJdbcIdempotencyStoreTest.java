package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.JdbcSchema;
import io.onlyonce.jdbc.JdbcStoreConfig;
import io.onlyonce.store.ClaimResult;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/** When the joined JDBC store writes through the transaction's connection, and when on its own. */
class TransactionAwareJdbcIdempotencyStoreTest {

    private final DriverManagerDataSource dataSource = new DriverManagerDataSource(
            "jdbc:h2:mem:oo-joined-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    private final DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
    private final TransactionAwareJdbcIdempotencyStore store;

    TransactionAwareJdbcIdempotencyStoreTest() {
        JdbcSchema.apply(dataSource, JdbcDialect.H2, JdbcStoreConfig.defaults());
        store = new TransactionAwareJdbcIdempotencyStore(dataSource, JdbcDialect.H2, JdbcStoreConfig.defaults(), true, null);
    }

    private long rows() {
        return new JdbcTemplate(dataSource).queryForObject("SELECT count(*) FROM onlyonce_idempotency", Long.class);
    }

    @Test
    void aClaimInAReadWriteTransactionIsPartOfItAndRollsBackWithIt() {
        TransactionTemplate template = new TransactionTemplate(transactions);
        template.executeWithoutResult(status -> {
            assertThat(store.joinsCurrentTransaction()).isTrue();
            assertThat(store.claim(new IdempotencyKey("s", "k1"), Fingerprint.of("a"), Duration.ofSeconds(30)))
                    .isInstanceOf(ClaimResult.Claimed.class);
            status.setRollbackOnly();
        });
        assertThat(rows()).as("rolled back with the transaction").isZero();
    }

    @Test
    void outsideATransactionAndInAReadOnlyOneTheStoreCommitsOnItsOwn() {
        assertThat(store.joinsCurrentTransaction()).isFalse();
        TransactionTemplate readOnly = new TransactionTemplate(transactions);
        readOnly.setReadOnly(true);
        readOnly.executeWithoutResult(status -> {
            new JdbcTemplate(dataSource).queryForObject("SELECT 1", Integer.class);
            assertThat(store.joinsCurrentTransaction()).as("read-only").isFalse();
        });
        assertThat(store.claim(new IdempotencyKey("s", "k2"), Fingerprint.of("a"), Duration.ofSeconds(30)))
                .isInstanceOf(ClaimResult.Claimed.class);
        assertThat(rows()).isEqualTo(1);
    }
}
