package io.onlyonce.redis.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.store.StoreBudget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What {@link ScriptRunner} decides without a server, on ports that answer what each test says:
 * only {@code NOSCRIPT} is sent again, the budget ends an asynchronous call and cancels its
 * command, a cancelled call cancels its command, an answer of another type is no answer, and a
 * blocking call keeps to the {@link StoreBudget} open on its thread. The cases that reach Redis are
 * in {@code ScriptRunnerIT}.
 */
class ScriptRunnerTest {

    private static final LuaScript SCRIPT = new LuaScript("probe", "return 1");
    private static final byte[] KEY = "oo:probe".getBytes(StandardCharsets.UTF_8);
    private static final Duration BUDGET = Duration.ofSeconds(2);

    private final List<String> sent = new CopyOnWriteArrayList<>();

    /** The two forms of every call. */
    enum Form {
        BLOCKING, ASYNC
    }

    /** What the fake port does on each command. */
    private interface Reply {
        @Nullable Object answer(String command, long deadline);
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void aFailureOtherThanNoscriptIsNeverSentAgain(Form form) {
        StoreUnavailableException timeout = new StoreUnavailableException("probe", new TimeoutException("no answer"));
        ScriptRunner runner = ScriptRunner.of(port((command, deadline) -> {
            throw timeout;
        }), BUDGET);

        assertThatThrownBy(() -> integer(form, runner)).isSameAs(timeout);
        assertThat(sent).as("a timed-out EVALSHA may have run: never sent again").containsExactly("evalsha");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void noscriptIsSentOnceMoreWithTheSourceAndOnlyOnce(Form form) {
        ScriptRunner once = ScriptRunner.of(port((command, deadline) -> {
            if (command.equals("evalsha")) {
                throw noscript();
            }
            return 7L;
        }), BUDGET);
        assertThat(call(() -> integer(form, once))).isEqualTo(7L);
        assertThat(sent).containsExactly("evalsha", "eval");

        sent.clear();
        ScriptRunner never = ScriptRunner.of(port((command, deadline) -> {
            throw noscript();
        }), BUDGET);
        assertThatThrownBy(() -> integer(form, never))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during probe")
                .cause().hasMessageStartingWith("NOSCRIPT");
        assertThat(sent).containsExactly("evalsha", "eval");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void keysRefusedBeforeSendingAreTheCallersMistake(Form form) {
        ScriptRunner runner = ScriptRunner.of(port((command, deadline) -> {
            throw new IllegalArgumentException("keys of several slots");
        }), BUDGET);

        assertThatThrownBy(() -> integer(form, runner))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("keys of several slots");
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void anAnswerOfAnotherTypeIsStoreUnavailable(Form form) {
        ScriptRunner runner = ScriptRunner.of(port((command, deadline) -> "text".getBytes(StandardCharsets.UTF_8)), BUDGET);

        assertThatThrownBy(() -> integer(form, runner))
                .isInstanceOf(StoreUnavailableException.class)
                .cause().isInstanceOf(IllegalStateException.class).hasMessage("script answered no integer");
        assertThatThrownBy(() -> list(form, runner))
                .isInstanceOf(StoreUnavailableException.class)
                .cause().isInstanceOf(IllegalStateException.class).hasMessage("script answered no array");
    }

    @Test
    void anAsynchronousCallOverItsBudgetFailsAndCancelsItsCommand() throws Exception {
        CompletableFuture<@Nullable Object> command = new CompletableFuture<>();
        ScriptRunner runner = ScriptRunner.of(asyncPort(command), Duration.ofMillis(100));

        CompletableFuture<Long> call = runner.runForIntegerAsync("probe", SCRIPT, KEY);
        assertThat(call).as("returned before any answer").isNotDone();
        assertThatThrownBy(() -> join(call))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during probe (over budget)");
        assertThat(command).isCancelled();
    }

    @Test
    void cancellingAnAsynchronousCallCancelsItsCommand() {
        CompletableFuture<@Nullable Object> command = new CompletableFuture<>();
        ScriptRunner runner = ScriptRunner.of(asyncPort(command), BUDGET);

        runner.runForListAsync("probe", SCRIPT, KEY).cancel(true);
        assertThat(command).isCancelled();
    }

    @Test
    void aPortThatOnlyBlocksAnswersAsynchronousCallsOnAThreadOfItsOwn() throws Exception {
        AtomicReference<String> thread = new AtomicReference<>();
        ScriptRunner runner = ScriptRunner.of(port((command, deadline) -> {
            thread.set(Thread.currentThread().getName());
            return 3L;
        }), BUDGET);

        assertThat(join(runner.runForIntegerAsync("probe", SCRIPT, KEY))).isEqualTo(3L);
        assertThat(thread.get()).startsWith("onlyonce-redis-blocking-");
    }

    @Test
    void aBlockingCallWaitsAtMostWhatIsLeftOfTheStoreBudgetOpenOnItsThread() {
        AtomicLong deadline = new AtomicLong();
        ScriptRunner runner = ScriptRunner.of(port((command, until) -> {
            deadline.set(until);
            return 1L;
        }), Duration.ofSeconds(30));

        long after;
        try (StoreBudget.Scope budget = StoreBudget.open(Duration.ofMillis(200))) {
            assertThat(runner.runForInteger("probe", SCRIPT, KEY)).isEqualTo(1L);
            after = System.nanoTime();
        }
        assertThat(deadline.get() - after).as("what is left of the request's 200 ms")
                .isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));

        long before = System.nanoTime();
        runner.runForInteger("probe", SCRIPT, KEY);
        assertThat(deadline.get() - before).as("the runner's own budget").isGreaterThan(TimeUnit.SECONDS.toNanos(29));
    }

    @Test
    void theBudgetMustBePositive() {
        ScriptPort port = port((command, deadline) -> 1L);
        assertThatThrownBy(() -> ScriptRunner.of(port, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScriptRunner.of(port, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    private static long integer(Form form, ScriptRunner runner) throws Exception {
        return form == Form.BLOCKING ? runner.runForInteger("probe", SCRIPT, KEY) : join(runner.runForIntegerAsync("probe", SCRIPT, KEY));
    }

    private static List<@Nullable Object> list(Form form, ScriptRunner runner) throws Exception {
        return form == Form.BLOCKING ? runner.runForList("probe", SCRIPT, KEY) : join(runner.runForListAsync("probe", SCRIPT, KEY));
    }

    private interface Call<T> {
        T run() throws Exception;
    }

    private static <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static <T> T join(CompletableFuture<T> call) throws Exception {
        try {
            return call.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static ScriptErrorReply noscript() {
        String reply = "NOSCRIPT No matching script. Please use EVAL.";
        return new ScriptErrorReply(reply, new IllegalStateException(reply));
    }

    /** A port that only blocks (its asynchronous calls are the SPI's defaults), answering {@code reply}. */
    private ScriptPort port(Reply reply) {
        return new ScriptPort() {
            @Override
            public @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args,
                    long deadline) {
                sent.add("evalsha");
                return reply.answer("evalsha", deadline);
            }

            @Override
            public @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args,
                    long deadline) {
                sent.add("eval");
                return reply.answer("eval", deadline);
            }

            @Override
            public boolean isConnected() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    /** A port whose asynchronous {@code EVALSHA} is {@code command}, completed (or not) by the test. */
    private ScriptPort asyncPort(CompletableFuture<@Nullable Object> command) {
        ScriptPort blocking = port((name, deadline) -> {
            throw new AssertionError("not an asynchronous call");
        });
        return new ScriptPort() {
            @Override
            public @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args,
                    long deadline) {
                return blocking.evalsha(operation, sha, answer, keys, args, deadline);
            }

            @Override
            public @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args,
                    long deadline) {
                return blocking.eval(operation, source, answer, keys, args, deadline);
            }

            @Override
            public CompletableFuture<@Nullable Object> evalshaAsync(String operation, String sha, Answer answer,
                    byte[][] keys, byte[][] args, long deadline) {
                return command;
            }

            @Override
            public boolean isConnected() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }
}
