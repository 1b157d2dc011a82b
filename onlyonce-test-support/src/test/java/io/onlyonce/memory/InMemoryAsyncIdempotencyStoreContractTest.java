package io.onlyonce.memory;

import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.testing.AbstractAsyncIdempotencyStoreContractTest;

class InMemoryAsyncIdempotencyStoreContractTest extends AbstractAsyncIdempotencyStoreContractTest {

    private InMemoryIdempotencyStore memory;

    @Override
    protected AsyncIdempotencyStore createAsyncStore() {
        if (memory == null) {
            memory = new InMemoryIdempotencyStore(clock, 10_000);
        }
        return memory;
    }

    @Override
    protected void elapse(java.time.Duration duration) {
        clock.advance(duration);
    }
}
