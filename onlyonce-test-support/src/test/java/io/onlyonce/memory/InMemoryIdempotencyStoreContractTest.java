package io.onlyonce.memory;

import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.AbstractIdempotencyStoreContractTest;

class InMemoryIdempotencyStoreContractTest extends AbstractIdempotencyStoreContractTest {

    @Override
    protected IdempotencyStore createStore() {
        return new InMemoryIdempotencyStore(clock, 10_000);
    }

    @Override
    protected void elapse(java.time.Duration duration) {
        clock.advance(duration);
    }
}
