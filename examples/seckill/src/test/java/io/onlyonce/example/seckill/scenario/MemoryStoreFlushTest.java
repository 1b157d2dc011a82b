package io.onlyonce.example.seckill.scenario;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

/** The store flush on the embedded default: the in-memory store is emptied, as a restart would. */
// one user with 100 unpaid orders: past the abuse limits, which AbstractSafetyScenarios tests
@TestPropertySource(properties = {"spring.datasource.url=jdbc:h2:mem:seckill-flush;DB_CLOSE_DELAY=-1",
    "seckill.limits.enabled=false"})
@Import(MemoryStoreFlushTest.FlushableStoreConfiguration.class)
class MemoryStoreFlushTest extends AbstractStoreFlushScenario {

    @Autowired
    FlushableIdempotencyStore store;

    @Override
    protected void flushIdempotencyStore() {
        store.flush();
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class FlushableStoreConfiguration {

        @Bean
        FlushableIdempotencyStore onlyOnceIdempotencyStore(Clock clock) {
            return new FlushableIdempotencyStore(clock);
        }
    }

    /** The in-memory store, replaced by an empty one on {@link #flush()}. */
    static final class FlushableIdempotencyStore implements IdempotencyStore {

        private final Clock clock;
        private final AtomicReference<InMemoryIdempotencyStore> current;

        FlushableIdempotencyStore(Clock clock) {
            this.clock = clock;
            this.current = new AtomicReference<>(new InMemoryIdempotencyStore(clock, 100_000));
        }

        void flush() {
            current.set(new InMemoryIdempotencyStore(clock, 100_000));
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
            return current.get().claim(key, fingerprint, lease);
        }

        @Override
        public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
            return current.get().complete(key, owner, response, retention);
        }

        @Override
        public boolean release(IdempotencyKey key, OwnerToken owner) {
            return current.get().release(key, owner);
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
            return current.get().find(key);
        }
    }
}
