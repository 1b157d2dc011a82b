package io.onlyonce.jdbc;

import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The idempotency, token and window store suites on MariaDB, on a pool that hands out connections
 * with autocommit off at SERIALIZABLE: MariaDB turns every plain read into a shared-locking one,
 * released at each statement's commit.
 */
class MariaDbStoresSerializableIT extends AbstractJdbcStoresTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb().using(PoolMode.SERIALIZABLE);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
