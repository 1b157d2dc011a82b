package io.onlyonce.jdbc;

import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on H2, on a pool that hands out connections with
 * autocommit off at REPEATABLE READ: the stores commit each statement and retry serialization
 * failures and deadlocks.
 */
class H2StoresRepeatableReadTest extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.h2().using(PoolMode.REPEATABLE_READ);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
