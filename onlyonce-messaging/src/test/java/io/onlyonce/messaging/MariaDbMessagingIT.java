package io.onlyonce.messaging;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The message layer on MariaDB, on a pool with autocommit on. */
class MariaDbMessagingIT extends AbstractMessagingTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb().using(PoolMode.AUTOCOMMIT);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
