package io.onlyonce.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbWindowStoreIT extends AbstractJdbcWindowStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
