package io.onlyonce.messaging;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The message layer on H2, on a pool that hands out connections with autocommit off at REPEATABLE READ. */
class H2MessagingRepeatableReadTest extends AbstractMessagingTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.h2().using(PoolMode.REPEATABLE_READ);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
