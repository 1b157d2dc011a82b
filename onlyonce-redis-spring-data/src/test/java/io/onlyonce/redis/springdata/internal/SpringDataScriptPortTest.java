package io.onlyonce.redis.springdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.RedisAtomicExecutor;
import io.onlyonce.redis.RedisEffect;
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
import org.springframework.data.redis.connection.RedisClusterConnection;
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
        // the claim's two sends; what follows is the store reading Redis's clock once it answered
        assertThat(sent.subList(0, 2)).containsExactly("evalSha", "eval");
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

    @Test
    void onAClusterKeysOfSeveralSlotsAreRefusedBeforeAnythingIsSent() {
        RedisAtomicExecutor atomic = RedisAtomicExecutor.of(connection(name -> List.of(), RedisClusterConnection.class), CONFIG);
        RedisEffect effect = RedisEffect.of("effect", "return {'decline'}");
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(KEY, Fingerprint.of("a"), Duration.ofMinutes(1), effect)
                .keys("elsewhere").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("oo:i:NOSCRIPT:WRONGTYPE (slot ")
                .hasMessageContaining("elsewhere (slot ");
        assertThat(sent).isEmpty();
    }

    @Test
    void aFailedEffectIsAnIllegalState() {
        RedisAtomicExecutor atomic = RedisAtomicExecutor.of(connection(name -> {
            throw new RedisSystemException("Error in execution",
                    new IllegalStateException("ONLYONCE_EFFECT user_script:1: boom"));
        }, RedisConnection.class), CONFIG);
        RedisEffect effect = RedisEffect.of("effect", "error('boom')");
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(KEY, Fingerprint.of("a"), Duration.ofMinutes(1), effect).build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("atomic effect failed: user_script:1: boom");
        assertThat(sent).containsExactly("evalSha");
    }

    /** A store over a factory whose scripting commands answer {@code answer} (by method name) and record each call. */
    private RedisIdempotencyStore store(Function<String, Object> answer) {
        return RedisIdempotencyStore.of(connection(answer, RedisConnection.class), CONFIG);
    }

    /** A connection whose factory hands out a {@code type} whose scripting commands answer {@code answer}. */
    private RedisStoreConnection connection(Function<String, Object> answer, Class<? extends RedisConnection> type) {
        RedisScriptingCommands scripting = proxy(RedisScriptingCommands.class, name -> {
            sent.add(name);
            return answer.apply(name);
        });
        RedisConnection connection = proxy(type, name -> switch (name) {
            case "scriptingCommands" -> scripting;
            case "close" -> null;
            default -> throw new UnsupportedOperationException(name);
        });
        RedisConnectionFactory factory = proxy(RedisConnectionFactory.class, name -> switch (name) {
            case "getConnection" -> connection;
            default -> throw new UnsupportedOperationException(name);
        });
        return RedisStoreConnection.of(new SpringDataScriptPort(factory, 2, warning -> { }));
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Function<String, Object> answer) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> answer.apply(method.getName()));
    }
}
