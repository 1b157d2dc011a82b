package io.onlyonce.jdbc;

import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on H2, on a pool that hands out connections with
 * autocommit off at READ COMMITTED: the stores commit each of their statements.
 */
class H2StoresReadCommittedTest extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.h2().using(PoolMode.READ_COMMITTED);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
