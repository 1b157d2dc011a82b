package io.onlyonce.jdbc;

import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on PostgreSQL, on a pool with autocommit on (the
 * server's default isolation level).
 */
class PostgresStoresIT extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres().using(PoolMode.AUTOCOMMIT);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
