package io.onlyonce.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class H2WindowStoreTest extends AbstractJdbcWindowStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.h2();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
