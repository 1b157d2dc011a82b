package io.onlyonce.memory;

import io.onlyonce.testing.AbstractTokenStoreContractTest;
import io.onlyonce.token.TokenStore;

class InMemoryTokenStoreContractTest extends AbstractTokenStoreContractTest {

    @Override
    protected TokenStore createStore() {
        return new InMemoryTokenStore(clock, 10_000);
    }

    @Override
    protected void elapse(java.time.Duration duration) {
        clock.advance(duration);
    }
}
