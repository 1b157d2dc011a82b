package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import io.onlyonce.store.ClaimResult;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on MariaDB, on a pool with autocommit on (the
 * server's default isolation level).
 */
class MariaDbStoresIT extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb().using(PoolMode.AUTOCOMMIT);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }

    @Test
    void keyHashIsTheDocumentedSqlExpression() throws Exception {
        JdbcIdempotencyStore store = new JdbcIdempotencyStore(DATABASE.dataSource(), DATABASE.dialect());
        IdempotencyKey key = new IdempotencyKey("用户-" + UUID.randomUUID() + ":POST /订单", "key-" + UUID.randomUUID());
        assertThat(store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Claimed.class);

        assertThat(DATABASE.queryLong("SELECT COUNT(*) FROM onlyonce_idempotency"
                + " WHERE key_hash = UNHEX(SHA2(CONCAT(?, CHAR(0), ?), 256))", key.scope(), key.name())).isEqualTo(1);
        assertThat(DATABASE.query("SELECT scope, idem_key FROM onlyonce_idempotency WHERE key_hash ="
                + " UNHEX(SHA2(CONCAT(scope, CHAR(0), idem_key), 256)) AND idem_key = ?",
                row -> new IdempotencyKey(row.getString(1), row.getString(2)), key.name())).containsExactly(key);
    }
}
