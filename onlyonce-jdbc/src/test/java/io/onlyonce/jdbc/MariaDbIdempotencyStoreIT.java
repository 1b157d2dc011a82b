package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.ClaimResult;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }

    @Test
    void keyHashIsTheDocumentedSqlExpression() throws Exception {
        IdempotencyKey key = new IdempotencyKey("用户-" + UUID.randomUUID() + ":POST /订单", "key-" + UUID.randomUUID());
        assertThat(store.claim(key, fingerprint("a"), clock.instant(), LEASE)).isInstanceOf(ClaimResult.Claimed.class);

        assertThat(DATABASE.queryLong("SELECT COUNT(*) FROM onlyonce_idempotency"
                + " WHERE key_hash = UNHEX(SHA2(CONCAT(?, CHAR(0), ?), 256))", key.scope(), key.name())).isEqualTo(1);
        assertThat(DATABASE.query("SELECT scope, idem_key FROM onlyonce_idempotency WHERE key_hash ="
                + " UNHEX(SHA2(CONCAT(scope, CHAR(0), idem_key), 256)) AND idem_key = ?",
                row -> new IdempotencyKey(row.getString(1), row.getString(2)), key.name())).containsExactly(key);
    }
}
