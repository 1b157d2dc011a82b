package io.onlyonce.jdbc;

import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on PostgreSQL, on a pool that hands out
 * connections with autocommit off at READ COMMITTED: the stores commit each of their statements.
 */
class PostgresStoresReadCommittedIT extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres().using(PoolMode.READ_COMMITTED);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
