package io.onlyonce.redis.script;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.store.StoreBudget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Runs Lua scripts on Redis through a {@link ScriptPort} (Lettuce directly, or Spring Data Redis'
 * {@code RedisConnectionFactory} for Jedis, Redisson and Lettuce) and turns every failure into an
 * exception of OnlyOnce's. Every Redis store of OnlyOnce runs its scripts with one: the blocking
 * and asynchronous stores, {@code RedisAtomicExecutor}, and through {@code RedisWindowStore} the
 * gateway's reactive window filter. Thread-safe, as the ports are.
 *
 * <pre>{@code
 * static final LuaScript BUMP = new LuaScript("bump", "return redis.call('INCR', KEYS[1])");
 *
 * ScriptRunner redis = ScriptRunner.of(connection, Duration.ofMillis(500));   // or RedisStoreConnection.runner(...)
 * long count = redis.runForInteger("bump", BUMP, key);
 * CompletableFuture<Long> later = redis.runForIntegerAsync("bump", BUMP, key); // never blocks the caller
 * }</pre>
 *
 * <h2>The budget</h2>
 * Every call has a budget of its own: it waits for its connection (when that is made on first use)
 * and its answer at most that long, whatever the client's command timeout; a blocking call made
 * while a {@link StoreBudget} is open on its thread waits at most what is left of that. A call over
 * budget throws {@link StoreUnavailableException} (its asynchronous form fails with it, and the
 * command is cancelled where the client can); a script already sent may still run on the server.
 *
 * <h2>{@code EVALSHA}, then {@code EVAL} once</h2>
 * A script runs with {@code EVALSHA}. When the server answers {@code NOSCRIPT} (restart, failover,
 * {@code SCRIPT FLUSH}) it is sent once more with {@code EVAL}, which runs it and caches it on that
 * server for the next {@code EVALSHA}. Unlike {@code SCRIPT LOAD}, which Lettuce's Cluster API sends
 * to every node, replicas included, and which fails as soon as any one of them is down,
 * {@code EVAL} goes only to the node that owns the key: one round trip, and the reload cannot fail
 * because of another node. A script that failed with {@code NOSCRIPT} never ran, so sending it again
 * cannot apply it twice; any other failure (a timeout, say) is never retried.
 *
 * <h2>Failures</h2>
 * <ul>
 *   <li>No connection, no answer within the budget, a closed client, an error reply of the server's
 *     state ({@code OOM}, {@code READONLY} ...): {@link StoreUnavailableException}.</li>
 *   <li>A key that holds something the script did not write: {@code WRONGTYPE} from Redis for
 *     another type, or {@value ScriptErrorReply#CORRUPT} from the script's own checks. Both are a
 *     {@link StoreUnavailableException} whose cause is a {@link CorruptValueException} naming the
 *     key: the first key, or the one whose 1-based index follows the code
 *     ({@code ONLYONCE_CORRUPT #2 not a counter}).</li>
 *   <li>An answer of another type than asked for: {@link StoreUnavailableException}.</li>
 *   <li>The caller's own mistakes: a script whose user-written part failed
 *     ({@value ScriptErrorReply#SCRIPT_FAILED}) or that does not compile throws
 *     {@link IllegalStateException}; on a Cluster, a script whose keys span slots is refused with
 *     {@link IllegalArgumentException} before it is sent.</li>
 * </ul>
 */
public final class ScriptRunner {

    /** The key index after {@link ScriptErrorReply#CORRUPT} in the answer of a script with several keys. */
    private static final Pattern KEY_INDEX = Pattern.compile("#([0-9]{1,4}) ");
    /** Where Redis says an error raised in a script came from, after the error's own text. */
    private static final Pattern SCRIPT_LOCATION = Pattern.compile("\\s*script: [0-9a-f]{40}, on @user_script:[0-9]+\\.$");

    private final ScriptPort port;
    private final long budgetNanos;

    private ScriptRunner(ScriptPort port, Duration budget) {
        this.port = Objects.requireNonNull(port, "port");
        if (budget == null || budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("the budget must be positive");
        }
        this.budgetNanos = budget.toNanos();
    }

    /**
     * A runner on {@code port}.
     *
     * @param budget the budget of each call, positive
     */
    public static ScriptRunner of(ScriptPort port, Duration budget) {
        return new ScriptRunner(port, budget);
    }

    /**
     * Runs a script of one key that answers an integer.
     *
     * @param operation what the caller is doing, for messages ({@code "store unavailable during "}
     *     and the operation)
     * @throws StoreUnavailableException see the class documentation
     */
    public long runForInteger(String operation, LuaScript script, byte[] key, byte[]... args) {
        return integer(operation, run(operation, script, ScriptPort.Answer.INTEGER, new byte[][] {key}, args));
    }

    /**
     * Runs a script of one key that answers an array; its bulk strings arrive as {@code byte[]},
     * its integers as {@link Long}.
     *
     * @throws StoreUnavailableException see the class documentation
     */
    public List<@Nullable Object> runForList(String operation, LuaScript script, byte[] key, byte[]... args) {
        return list(operation, run(operation, script, ScriptPort.Answer.MULTI, new byte[][] {key}, args));
    }

    /**
     * {@link #runForList(String, LuaScript, byte[], byte[]...)} of a script with several keys, which
     * on a Cluster must hash to one slot (refused with {@link IllegalArgumentException} before
     * anything is sent otherwise).
     *
     * @throws StoreUnavailableException see the class documentation
     */
    public List<@Nullable Object> runForList(String operation, LuaScript script, byte[][] keys, byte[]... args) {
        return list(operation, run(operation, script, ScriptPort.Answer.MULTI, keys, args));
    }

    /**
     * {@link #runForInteger} without blocking: the future fails as the blocking call would throw,
     * also when the call's budget runs out (the command is then cancelled where the client can).
     * Cancelling the future cancels the command likewise; one not yet sent is never sent.
     */
    public CompletableFuture<Long> runForIntegerAsync(String operation, LuaScript script, byte[] key, byte[]... args) {
        return runAsync(operation, script, ScriptPort.Answer.INTEGER, new byte[][] {key}, args,
                answer -> integer(operation, answer));
    }

    /** {@link #runForList(String, LuaScript, byte[], byte[]...)} without blocking, as {@link #runForIntegerAsync}. */
    public CompletableFuture<List<@Nullable Object>> runForListAsync(String operation, LuaScript script, byte[] key,
            byte[]... args) {
        return runForListAsync(operation, script, new byte[][] {key}, args);
    }

    /** {@link #runForList(String, LuaScript, byte[][], byte[]...)} without blocking, as {@link #runForIntegerAsync}. */
    public CompletableFuture<List<@Nullable Object>> runForListAsync(String operation, LuaScript script, byte[][] keys,
            byte[]... args) {
        return runAsync(operation, script, ScriptPort.Answer.MULTI, keys, args, answer -> list(operation, answer));
    }

    private static long integer(String operation, @Nullable Object answer) {
        if (!(answer instanceof Long result)) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered no integer"));
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static List<@Nullable Object> list(String operation, @Nullable Object answer) {
        if (!(answer instanceof List<?> result)) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered no array"));
        }
        return (List<@Nullable Object>) result;
    }

    private @Nullable Object run(String operation, LuaScript script, ScriptPort.Answer answer, byte[][] keys, byte[][] args) {
        return StoreBudget.call(operation, () -> {
            long deadline = StoreBudget.deadline(operation, budgetNanos);
            try {
                try {
                    return port.evalsha(operation, script.sha(), answer, keys, args, deadline);
                } catch (ScriptErrorReply e) {
                    if (!e.isNoScript()) {
                        throw e;
                    }
                    return port.eval(operation, script.source(), answer, keys, args, deadline);
                }
            } catch (ScriptErrorReply e) {
                throw failure(operation, keys, e);
            }
        });
    }

    /**
     * {@code EVALSHA}, then {@code EVAL} after {@code NOSCRIPT}, within the budget: the future
     * completes with the answer as {@code shape} takes it, or fails as the blocking call throws.
     */
    private <T> CompletableFuture<T> runAsync(String operation, LuaScript script, ScriptPort.Answer answer,
            byte[][] keys, byte[][] args, Function<@Nullable Object, T> shape) {
        long deadline = System.nanoTime() + budgetNanos;
        CompletableFuture<T> budgeted = new CompletableFuture<>();
        CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
        AtomicReference<@Nullable CompletableFuture<@Nullable Object>> inFlight = new AtomicReference<>();
        CompletableFuture<@Nullable Object> first = port.evalshaAsync(operation, script.sha(), answer, keys, args, deadline);
        inFlight.set(first);
        first.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else if (cause(failure) instanceof ScriptErrorReply reply && reply.isNoScript() && !budgeted.isDone()) {
                CompletableFuture<@Nullable Object> again = port.evalAsync(operation, script.source(), answer, keys, args, deadline);
                inFlight.set(again);
                if (budgeted.isDone()) {
                    again.cancel(true); // given up while it was being sent
                }
                again.whenComplete((reloaded, failed) -> {
                    if (failed == null) {
                        result.complete(reloaded);
                    } else {
                        result.completeExceptionally(cause(failed));
                    }
                });
            } else {
                result.completeExceptionally(cause(failure));
            }
        });
        result.orTimeout(budgetNanos, TimeUnit.NANOSECONDS).whenComplete((value, failure) -> {
            if (failure == null) {
                try {
                    budgeted.complete(shape.apply(value));
                } catch (RuntimeException wrongShape) {
                    budgeted.completeExceptionally(wrongShape);
                }
            } else if (cause(failure) instanceof TimeoutException over) {
                budgeted.completeExceptionally(new StoreUnavailableException(operation + " (over budget)", over));
            } else {
                budgeted.completeExceptionally(translate(operation, keys, cause(failure)));
            }
        });
        // over budget or cancelled by the caller: a command not yet sent never is, one in flight is cancelled
        budgeted.whenComplete((value, failure) -> {
            CompletableFuture<@Nullable Object> pending = inFlight.get();
            if (failure != null && pending != null && !pending.isDone()) {
                pending.cancel(true);
            }
        });
        return budgeted;
    }

    private static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** What the blocking call throws for {@code failure}. */
    private static RuntimeException translate(String operation, byte[][] keys, Throwable failure) {
        if (failure instanceof ScriptErrorReply reply) {
            return failure(operation, keys, reply);
        }
        if (failure instanceof IllegalArgumentException refused) {
            return refused;
        }
        return failure instanceof StoreUnavailableException unavailable ? unavailable : new StoreUnavailableException(operation, failure);
    }

    /**
     * An error reply as the caller sees it: a value the script did not write names its key (the
     * first key, or the one a {@code #n} after the code picks); the failure of a script's
     * user-written part, or a script that does not compile, is an {@link IllegalStateException};
     * anything else, the store is unavailable.
     */
    private static RuntimeException failure(String operation, byte[][] keys, ScriptErrorReply e) {
        String message = String.valueOf(e.getMessage());
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (message.startsWith(ScriptErrorReply.SCRIPT_FAILED)) {
            return new IllegalStateException(operation + " failed: "
                    + message.substring(ScriptErrorReply.SCRIPT_FAILED.length()).trim(), cause);
        }
        if (message.startsWith(ScriptErrorReply.NOT_COMPILED)) {
            return new IllegalStateException(operation + " does not compile: " + message, cause);
        }
        boolean corrupt = message.startsWith(ScriptErrorReply.CORRUPT);
        if (corrupt || message.startsWith(ScriptErrorReply.WRONGTYPE)) {
            String reason = corrupt ? message.substring(ScriptErrorReply.CORRUPT.length()).trim() : "another Redis type";
            byte[] key = keys.length == 0 ? new byte[0] : keys[0];
            Matcher index = KEY_INDEX.matcher(reason);
            if (index.lookingAt()) {
                int i = Integer.parseInt(index.group(1)) - 1;
                if (i >= 0 && i < keys.length) {
                    key = keys[i];
                }
                reason = reason.substring(index.end());
            }
            reason = SCRIPT_LOCATION.matcher(reason).replaceFirst("");
            return new StoreUnavailableException(operation,
                    new CorruptValueException(new String(key, StandardCharsets.UTF_8), reason, cause));
        }
        return new StoreUnavailableException(operation, cause);
    }
}
