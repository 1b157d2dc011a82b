package io.onlyonce.memory;

import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;

class InMemoryWindowStoreContractTest extends AbstractWindowStoreContractTest {

    @Override
    protected WindowStore createStore() {
        return new InMemoryWindowStore(clock, 10_000);
    }

    @Override
    protected void elapse(java.time.Duration duration) {
        clock.advance(duration);
    }
}
