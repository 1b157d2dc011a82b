package io.onlyonce.messaging;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The message layer on PostgreSQL, on a pool that hands out connections with autocommit off at
 * REPEATABLE READ: the relay commits its own statements (its claim at READ COMMITTED), and the
 * inbox's concurrent duplicates surface as serialization failures that are tried again.
 */
class PostgresMessagingRepeatableReadIT extends AbstractMessagingTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres().using(PoolMode.REPEATABLE_READ);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
