package io.onlyonce.jdbc;

import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on PostgreSQL, on a pool that hands out
 * connections with autocommit off at SERIALIZABLE: PostgreSQL's serializable snapshot isolation
 * fails more statements, each retried.
 */
class PostgresStoresSerializableIT extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres().using(PoolMode.SERIALIZABLE);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
