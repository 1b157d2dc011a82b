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
import org.jspecify.annotations.Nullable;
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
            public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
                check(RECORDS_FAILING, "claim");
                return memory.claim(key, fingerprint, lease);
            }

            @Override
            public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
                check(RECORDS_FAILING, "complete");
                return memory.complete(key, owner, response, retention);
            }

            @Override
            public boolean release(IdempotencyKey key, OwnerToken owner) {
                check(RECORDS_FAILING, "release");
                return memory.release(key, owner);
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey key) {
                check(RECORDS_FAILING, "find");
                return memory.find(key);
            }
        };
    }

    @Bean
    TokenStore switchableTokenStore(MutableClock clock) {
        TokenStore memory = new InMemoryTokenStore(clock, 100_000);
        return new TokenStore() {
            @Override
            public boolean save(OneTimeToken token, Duration ttl) {
                check(TOKENS_FAILING, "save token");
                return memory.save(token, ttl);
            }

            @Override
            public boolean consume(OneTimeToken token) {
                check(TOKENS_FAILING, "consume token");
                return memory.consume(token);
            }

            @Override
            public boolean restore(OneTimeToken token) {
                check(TOKENS_FAILING, "restore token");
                return memory.restore(token);
            }
        };
    }

    @Bean
    WindowStore switchableWindowStore(MutableClock clock) {
        WindowStore memory = new InMemoryWindowStore(clock, 100_000);
        return new WindowStore() {
            @Override
            public io.onlyonce.window.WindowHit hit(io.onlyonce.Fingerprint key, java.time.Duration window) {
                check(WINDOWS_FAILING, "window");
                return memory.hit(key, window);
            }

            @Override
            public void release(io.onlyonce.Fingerprint key) {
                check(WINDOWS_FAILING, "window release");
                memory.release(key);
            }
        };
    }
}
