package io.onlyonce.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresWindowStoreIT extends AbstractJdbcWindowStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
