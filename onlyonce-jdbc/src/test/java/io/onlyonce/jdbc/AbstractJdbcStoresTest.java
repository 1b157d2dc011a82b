package io.onlyonce.jdbc;

import org.junit.jupiter.api.Nested;

/**
 * The idempotency, token and window store suites on one scratch database. A subclass registers the
 * {@link ScratchDatabase} (server and pool mode) as a static extension and returns it.
 */
abstract class AbstractJdbcStoresTest {

    /** The scratch database of the class. */
    protected abstract ScratchDatabase database();

    @Nested
    class Idempotency extends AbstractJdbcIdempotencyStoreTest {

        @Override
        protected ScratchDatabase database() {
            return AbstractJdbcStoresTest.this.database();
        }
    }

    @Nested
    class Tokens extends AbstractJdbcTokenStoreTest {

        @Override
        protected ScratchDatabase database() {
            return AbstractJdbcStoresTest.this.database();
        }
    }

    @Nested
    class Windows extends AbstractJdbcWindowStoreTest {

        @Override
        protected ScratchDatabase database() {
            return AbstractJdbcStoresTest.this.database();
        }
    }
}
