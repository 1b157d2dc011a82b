package io.onlyonce.example.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.RecordStatus;
import org.springframework.beans.factory.annotation.Autowired;

/** The service on the in-memory store (its default). */
class MemoryStoreWebfluxServiceTest extends AbstractWebfluxServiceTest {

    @Autowired
    IdempotencyStore store;

    @Override
    void assertStored(String scope, String key) {
        assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
        assertThat(store.find(new IdempotencyKey(scope, key)))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));
    }
}
