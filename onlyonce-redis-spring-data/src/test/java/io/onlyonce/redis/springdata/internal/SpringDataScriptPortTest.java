package io.onlyonce.redis.springdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.store.ClaimResult;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;

/**
 * How the port reads a client's failures, on a factory that answers what the test says: only an
 * exception whose message is an error reply counts as one, so a timed-out {@code EVALSHA} (which may
 * have run) is never taken for {@code NOSCRIPT} and sent again.
 */
class SpringDataScriptPortTest {

    private static final RedisStoreConfig CONFIG = new RedisStoreConfig("oo:", 16, Duration.ofSeconds(2));
    private static final IdempotencyKey KEY = new IdempotencyKey("NOSCRIPT", "WRONGTYPE");

    private final List<String> sent = new CopyOnWriteArrayList<>();

    @Test
    void aTimeoutWhoseMessageNamesNoscriptIsNotSentAgain() {
        RedisIdempotencyStore store = store(command -> {
            throw new QueryTimeoutException("Command timed out: EVALSHA [oo:i:NOSCRIPT:WRONGTYPE] NOSCRIPT");
        });
        assertThatThrownBy(() -> store.claim(KEY, Fingerprint.of("a"), Duration.ofSeconds(30)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasRootCauseInstanceOf(QueryTimeoutException.class);
        assertThat(sent).containsExactly("evalSha");
    }

    @Test
    void aNoscriptReplyIsSentOnceMoreWithTheSource() {
        RedisIdempotencyStore store = store(command -> {
            if (command.equals("evalSha")) {
                throw new RedisSystemException("Error in execution",
                        new IllegalStateException("NOSCRIPT No matching script. Please use EVAL."));
            }
            return List.of();
        });
        assertThat(store.claim(KEY, Fingerprint.of("a"), Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Claimed.class);
        assertThat(sent).containsExactly("evalSha", "eval");
    }

    @Test
    void aWrongtypeReplyIsACorruptValue() {
        RedisIdempotencyStore store = store(command -> {
            throw new RedisSystemException("Error in execution",
                    new IllegalStateException("WRONGTYPE Operation against a key holding the wrong kind of value"));
        });
        assertThatThrownBy(() -> store.find(KEY)).isInstanceOf(StoreUnavailableException.class)
                .cause().hasMessageContaining("oo:i:NOSCRIPT:WRONGTYPE");
        assertThat(sent).containsExactly("evalSha");
    }

    /** A store over a factory whose scripting commands answer {@code answer} (by method name) and record each call. */
    private RedisIdempotencyStore store(Function<String, Object> answer) {
        RedisScriptingCommands scripting = proxy(RedisScriptingCommands.class, name -> {
            sent.add(name);
            return answer.apply(name);
        });
        RedisConnection connection = proxy(RedisConnection.class, name -> switch (name) {
            case "scriptingCommands" -> scripting;
            case "close" -> null;
            default -> throw new UnsupportedOperationException(name);
        });
        RedisConnectionFactory factory = proxy(RedisConnectionFactory.class, name -> switch (name) {
            case "getConnection" -> connection;
            default -> throw new UnsupportedOperationException(name);
        });
        return RedisIdempotencyStore.of(RedisStoreConnection.of(new SpringDataScriptPort(factory, 2, warning -> { })), CONFIG);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Function<String, Object> answer) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> answer.apply(method.getName()));
    }
}
