package io.onlyonce.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresIdempotencyStoreIT extends AbstractJdbcIdempotencyStoreTest {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres();

    @Override
    protected ScratchDatabase database() {
        return DATABASE;
    }
}
