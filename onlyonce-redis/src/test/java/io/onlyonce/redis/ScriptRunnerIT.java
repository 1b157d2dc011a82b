package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.internal.ConnectionHolder;
import io.onlyonce.redis.internal.LettuceScriptPort;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.redis.script.ScriptPort;
import io.onlyonce.redis.script.ScriptRunner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ScriptRunner} on the shared standalone server, through the Lettuce port, each case in the
 * blocking and the asynchronous form: a script the server has not cached is sent once more with
 * {@code EVAL} and runs once; each kind of error reply becomes what the runner documents; a server
 * that cannot be reached is unavailable within the budget.
 */
class ScriptRunnerIT {

    @RegisterExtension
    static final SharedRedis.OnStandalone REDIS = new SharedRedis.OnStandalone();
    private static final String PREFIX = REDIS.prefix();
    private static final Duration BUDGET = Duration.ofSeconds(2);
    private static final long FAR_BELOW_THE_CLIENT_TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    private final List<String> sent = new CopyOnWriteArrayList<>();

    /** The two forms of every call. */
    enum Form {
        BLOCKING, ASYNC
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void aScriptTheServerHasNotCachedIsSentOnceMoreWithEvalAndRunsOnce(Form form) throws Exception {
        LuaScript bump = script("bump", "return redis.call('INCR', KEYS[1])");
        byte[] key = key("bump");
        ScriptRunner runner = ScriptRunner.of(recording(), BUDGET);

        assertThat(integer(form, runner, bump, key)).isEqualTo(1);
        assertThat(sent).containsExactly("evalsha", "eval");

        sent.clear();
        assertThat(integer(form, runner, bump, key)).isEqualTo(2);
        assertThat(sent).as("cached by the EVAL").containsExactly("evalsha");
        assertThat(REDIS.commands().get(key)).asString().isEqualTo("2");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void aKeyOfAnotherTypeIsACorruptValueNamingTheKeyAndIsLeftAlone(Form form) {
        byte[] key = key("list");
        REDIS.commands().rpush(key, bytes("x"));
        LuaScript get = script("get", "return {redis.call('GET', KEYS[1])}");

        assertThatThrownBy(() -> list(form, ScriptRunner.of(recording(), BUDGET), get, new byte[][] {key}))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during get")
                .cause().isInstanceOf(CorruptValueException.class)
                .hasMessage("corrupt value under Redis key " + text(key) + ": another Redis type; not written by the OnlyOnce stores")
                .cause().isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("WRONGTYPE");
        assertThat(sent).containsExactly("evalsha", "eval");
        assertThat(REDIS.commands().lrange(key, 0, -1)).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void theScriptsOwnCorruptReplyNamesTheKeyOfItsIndexWithoutTheScriptsLocation(Form form) {
        byte[][] keys = {key("first"), key("second")};
        ScriptRunner runner = ScriptRunner.of(recording(), BUDGET);
        LuaScript replied = script("check", "return redis.error_reply('ONLYONCE_CORRUPT #2 not a counter')");
        LuaScript raised = script("check", "error({err = 'ONLYONCE_CORRUPT #2 not a counter either'})");
        LuaScript unindexed = script("check", "return redis.error_reply('ONLYONCE_CORRUPT no TTL')");

        assertThatThrownBy(() -> list(form, runner, replied, keys))
                .isInstanceOf(StoreUnavailableException.class).cause().isInstanceOf(CorruptValueException.class)
                .hasMessage("corrupt value under Redis key " + text(keys[1]) + ": not a counter; not written by the OnlyOnce stores");
        assertThatThrownBy(() -> list(form, runner, raised, keys))
                .isInstanceOf(StoreUnavailableException.class).cause().isInstanceOf(CorruptValueException.class)
                .hasMessage("corrupt value under Redis key " + text(keys[1])
                        + ": not a counter either; not written by the OnlyOnce stores");
        assertThatThrownBy(() -> list(form, runner, unindexed, keys))
                .isInstanceOf(StoreUnavailableException.class).cause().isInstanceOf(CorruptValueException.class)
                .hasMessage("corrupt value under Redis key " + text(keys[0]) + ": no TTL; not written by the OnlyOnce stores");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void aFailedOrUncompilableScriptIsTheCallersIllegalState(Form form) {
        ScriptRunner runner = ScriptRunner.of(recording(), BUDGET);
        LuaScript failed = script("effect", "return redis.error_reply('ONLYONCE_EFFECT user_script:1: boom')");
        LuaScript broken = script("broken", "return {");

        assertThatThrownBy(() -> list(form, runner, failed, new byte[][] {key("effect")}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("effect failed: user_script:1: boom")
                .cause().isInstanceOf(RedisCommandExecutionException.class);
        assertThatThrownBy(() -> list(form, runner, broken, new byte[][] {key("broken")}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("broken does not compile: ERR Error compiling script");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void anyOtherErrorReplyIsStoreUnavailableAndNotCalledCorrupt(Form form) {
        LuaScript boom = script("boom", "error('boom')");

        assertThatThrownBy(() -> list(form, ScriptRunner.of(recording(), BUDGET), boom, new byte[][] {key("boom")}))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during boom")
                .cause().isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("ERR user_script:2: boom");
        assertThat(sent).as("sent again after NOSCRIPT only").containsExactly("evalsha", "eval");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void aServerThatCannotBeReachedIsUnavailableWithinTheBudget(Form form) throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + PrivateRedisServer.freePort()));
        try (RedisStoreConnection connection = RedisStoreConnection.onFirstUse(() -> client)) {
            ScriptRunner runner = connection.runner(Duration.ofMillis(500));
            LuaScript one = script("one", "return 1");
            long start = System.nanoTime();
            assertThatThrownBy(() -> integer(form, runner, one, key("dead")))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageStartingWith("store unavailable during one");
            assertThat(System.nanoTime() - start).isLessThan(FAR_BELOW_THE_CLIENT_TIMEOUT);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void pingAsyncAnswersWhetherRedisAnswersAndNeverFails() throws Exception {
        RedisClient live = RedisClient.create(RedisTestSettings.standaloneUri());
        RedisClient dead = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + PrivateRedisServer.freePort()));
        try (RedisStoreConnection up = RedisStoreConnection.onFirstUse(() -> live);
                RedisStoreConnection down = RedisStoreConnection.onFirstUse(() -> dead)) {
            CompletableFuture<Boolean> upPing = up.pingAsync(Duration.ofSeconds(5));
            CompletableFuture<Boolean> downPing = down.pingAsync(Duration.ofMillis(500));
            assertThat(upPing.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(up.isConnected()).as("made by the ping").isTrue();
            assertThat(downPing.get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(down.isConnected()).isFalse();
        } finally {
            live.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            dead.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    private static long integer(Form form, ScriptRunner runner, LuaScript script, byte[] key) throws Exception {
        return form == Form.BLOCKING ? runner.runForInteger(script.name(), script, key)
                : Futures.join(runner.runForIntegerAsync(script.name(), script, key));
    }

    private static List<@Nullable Object> list(Form form, ScriptRunner runner, LuaScript script, byte[][] keys)
            throws Exception {
        return form == Form.BLOCKING ? runner.runForList(script.name(), script, keys)
                : Futures.join(runner.runForListAsync(script.name(), script, keys));
    }

    /** The Lettuce port on the shared connection, recording each command it sends. */
    private ScriptPort recording() {
        ScriptPort port = new LettuceScriptPort(ConnectionHolder.of(REDIS.connection()));
        return new ScriptPort() {
            @Override
            public @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args,
                    long deadline) {
                sent.add("evalsha");
                return port.evalsha(operation, sha, answer, keys, args, deadline);
            }

            @Override
            public @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args,
                    long deadline) {
                sent.add("eval");
                return port.eval(operation, source, answer, keys, args, deadline);
            }

            @Override
            public CompletableFuture<@Nullable Object> evalshaAsync(String operation, String sha, Answer answer,
                    byte[][] keys, byte[][] args, long deadline) {
                sent.add("evalsha");
                return port.evalshaAsync(operation, sha, answer, keys, args, deadline);
            }

            @Override
            public CompletableFuture<@Nullable Object> evalAsync(String operation, byte[] source, Answer answer,
                    byte[][] keys, byte[][] args, long deadline) {
                sent.add("eval");
                return port.evalAsync(operation, source, answer, keys, args, deadline);
            }

            @Override
            public boolean isConnected() {
                return port.isConnected();
            }

            @Override
            public void close() {
                port.close();
            }
        };
    }

    /** A script of a source no server has seen yet: its first {@code EVALSHA} is answered {@code NOSCRIPT}. */
    private static LuaScript script(String name, String source) {
        return new LuaScript(name, "-- " + UUID.randomUUID() + "\n" + source);
    }

    private static byte[] key(String name) {
        return bytes(PREFIX + name + ":" + UUID.randomUUID());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }
}
