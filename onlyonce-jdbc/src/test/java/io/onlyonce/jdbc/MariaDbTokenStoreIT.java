package io.onlyonce.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbTokenStoreIT extends AbstractJdbcTokenStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.mariaDb();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
