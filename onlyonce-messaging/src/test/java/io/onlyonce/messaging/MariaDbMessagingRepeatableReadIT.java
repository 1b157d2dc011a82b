package io.onlyonce.messaging;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The message layer on MariaDB, on a pool that hands out connections with autocommit off at REPEATABLE READ. */
class MariaDbMessagingRepeatableReadIT extends AbstractMessagingTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb().using(PoolMode.REPEATABLE_READ);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }

    @Override
    protected boolean runsLongTests() {
        return true;
    }
}
