package io.onlyonce.messaging;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The message layer on H2 (the embedded default), on a pool with autocommit on. */
class H2MessagingTest extends AbstractMessagingTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.h2().using(PoolMode.AUTOCOMMIT);

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }

    @Override
    protected boolean runsLongTests() {
        return true;
    }
}
