package io.onlyonce.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class H2TokenStoreTest extends AbstractJdbcTokenStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.h2();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
