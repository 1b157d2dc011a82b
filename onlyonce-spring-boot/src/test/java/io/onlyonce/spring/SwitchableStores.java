package io.onlyonce.spring;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.memory.InMemoryTokenStore;
import io.onlyonce.memory.InMemoryWindowStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.testing.MutableClock;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The memory stores as application beans (so the auto-configured ones back off), each made to fail
 * on demand with the kind of error a real store would give.
 */
@TestConfiguration(proxyBeanMethods = false)
public class SwitchableStores {

    public static final AtomicBoolean RECORDS_FAILING = new AtomicBoolean();
    public static final AtomicBoolean TOKENS_FAILING = new AtomicBoolean();
    public static final AtomicBoolean WINDOWS_FAILING = new AtomicBoolean();

    public static void heal() {
        RECORDS_FAILING.set(false);
        TOKENS_FAILING.set(false);
        WINDOWS_FAILING.set(false);
    }

    static void check(AtomicBoolean failing, String operation) {
        if (failing.get()) {
            throw new StoreUnavailableException(operation,
                    new IOException("RedisConnectionException: Connection refused: redis-7.internal:6379"));
        }
    }

    @Bean
    IdempotencyStore switchableIdempotencyStore(MutableClock clock) {
        IdempotencyStore memory = new InMemoryIdempotencyStore(clock, 100_000);
        return new IdempotencyStore() {
            @Override
            public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Instant now, Duration lease) {
                check(RECORDS_FAILING, "claim");
                return memory.claim(key, fingerprint, now, lease);
            }

            @Override
            public boolean complete(IdempotencyKey key, OwnerToken owner, StoredResponse response, Instant now, Duration retention) {
                check(RECORDS_FAILING, "complete");
                return memory.complete(key, owner, response, now, retention);
            }

            @Override
            public boolean release(IdempotencyKey key, OwnerToken owner, Instant now) {
                check(RECORDS_FAILING, "release");
                return memory.release(key, owner, now);
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey key, Instant now) {
                check(RECORDS_FAILING, "find");
                return memory.find(key, now);
            }
        };
    }

    @Bean
    TokenStore switchableTokenStore(MutableClock clock) {
        TokenStore memory = new InMemoryTokenStore(clock, 100_000);
        return new TokenStore() {
            @Override
            public void save(OneTimeToken token, Instant now) {
                check(TOKENS_FAILING, "save token");
                memory.save(token, now);
            }

            @Override
            public boolean consume(OneTimeToken token, Instant now) {
                check(TOKENS_FAILING, "consume token");
                return memory.consume(token, now);
            }

            @Override
            public boolean restore(OneTimeToken token, Instant now) {
                check(TOKENS_FAILING, "restore token");
                return memory.restore(token, now);
            }
        };
    }

    @Bean
    WindowStore switchableWindowStore(MutableClock clock) {
        WindowStore memory = new InMemoryWindowStore(clock, 100_000);
        return (fingerprint, window, now) -> {
            check(WINDOWS_FAILING, "window");
            return memory.firstInWindow(fingerprint, window, now);
        };
    }
}
