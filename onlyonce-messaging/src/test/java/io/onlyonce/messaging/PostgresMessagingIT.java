package io.onlyonce.messaging;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The message layer on PostgreSQL, on a pool with autocommit on. */
class PostgresMessagingIT extends AbstractMessagingTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres().using(PoolMode.AUTOCOMMIT);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }

    @Override
    protected boolean runsLongTests() {
        return true;
    }
}
