package io.onlyonce.redis.internal;

import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.store.StoreBudget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Runs the stores' Lua scripts through a {@link ScriptPort} (Lettuce directly, or Spring Data
 * Redis' {@code RedisConnectionFactory} for Jedis, Redisson and Lettuce) and turns every failure
 * into a {@link StoreUnavailableException}.
 *
 * <p>Every call has a budget of its own: it waits for its connection (when that is made on first
 * use) and its answer at most that long, whatever the client's command timeout; a blocking call
 * made while a {@link StoreBudget} is open on its thread waits at most what is left of that. A call over
 * budget throws {@link StoreUnavailableException}; a script already sent may still run on the server.
 *
 * <p>A script runs with {@code EVALSHA}. When the server answers {@code NOSCRIPT} (restart,
 * failover, {@code SCRIPT FLUSH}) it is sent once more with {@code EVAL}, which runs it and caches
 * it on that server for the next {@code EVALSHA}. Unlike {@code SCRIPT LOAD}, which Lettuce's
 * Cluster API sends to every node, replicas included, and which fails as soon as any one of them is
 * down, {@code EVAL} goes only to the node that owns the key: one round trip, and the reload cannot
 * fail because of another node. A script that failed with {@code NOSCRIPT} never ran, so sending it
 * again cannot apply it twice; any other failure (a timeout, say) is not retried.
 *
 * <p>A key that holds something the stores did not write answers with an error: {@code WRONGTYPE}
 * from Redis for another type, or {@value #CORRUPT} from the scripts' own checks. Both become a
 * {@link StoreUnavailableException} whose cause is a {@link CorruptValueException} naming the key.
 *
 * <p>Two failures are the caller's, not the store's: a script of several keys whose keys span
 * Cluster slots is refused with {@link IllegalArgumentException} before it is sent, and a script
 * whose user-written part failed ({@value #SCRIPT_FAILED}) or that does not compile throws
 * {@link IllegalStateException}.
 *
 * <p>Thread-safe, as the ports are.
 */
public final class RedisScriptExecutor {

    /**
     * The error code the scripts answer when a key holds a value they did not write. A script with
     * several keys names the key by its 1-based index right after it: {@code ONLYONCE_CORRUPT #2 ...}.
     */
    public static final String CORRUPT = "ONLYONCE_CORRUPT";
    /**
     * The error code of a script whose user-written part failed (a Lua error, a refused command, an
     * answer of the wrong shape): an {@link IllegalStateException}, not an unavailable store.
     */
    public static final String SCRIPT_FAILED = "ONLYONCE_EFFECT";
    /** The start of the error Redis answers for a script that does not compile. */
    public static final String NOT_COMPILED = "ERR Error compiling script";
    /** The key index after {@link #CORRUPT} in the answer of a script with several keys. */
    private static final Pattern KEY_INDEX = Pattern.compile("#([0-9]{1,4}) ");
    /** Where Redis says an error raised in a script came from, after the error's own text. */
    private static final Pattern SCRIPT_LOCATION = Pattern.compile("\\s*script: [0-9a-f]{40}, on @user_script:[0-9]+\\.$");

    private final ScriptPort port;
    private final long budgetNanos;

    private RedisScriptExecutor(ScriptPort port, Duration budget) {
        this.port = port;
        this.budgetNanos = budget.toNanos();
    }

    /**
     * An executor straight on a Lettuce standalone (or Sentinel) or Cluster connection.
     *
     * @throws IllegalArgumentException for a connection that is neither standalone nor Cluster
     */
    public static RedisScriptExecutor of(StatefulConnection<byte[], byte[]> connection, Duration budget) {
        return new RedisScriptExecutor(new LettuceScriptPort(ConnectionHolder.of(connection)), budget);
    }

    /** An executor on {@code port}, with {@code budget} per call. */
    public static RedisScriptExecutor of(ScriptPort port, Duration budget) {
        return new RedisScriptExecutor(port, budget);
    }

    /** Runs a script that answers an integer. */
    public long runForInteger(String operation, LuaScript script, byte[] key, byte[]... args) {
        if (!(run(operation, script, ScriptPort.Answer.INTEGER, key, args) instanceof Long result)) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered no integer"));
        }
        return result;
    }

    /**
     * Runs a script that answers an array; its bulk strings arrive as {@code byte[]}, its integers
     * as {@link Long}.
     */
    @SuppressWarnings("unchecked")
    public List<@Nullable Object> runForList(String operation, LuaScript script, byte[] key, byte[]... args) {
        if (!(run(operation, script, ScriptPort.Answer.MULTI, key, args) instanceof List<?> result)) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered no array"));
        }
        return (List<@Nullable Object>) result;
    }

    /**
     * {@link #runForList} of a script with several keys, which in a Cluster must hash to one slot
     * (refused with {@link IllegalArgumentException} before anything is sent otherwise). An error
     * reply with {@link #SCRIPT_FAILED} or {@link #NOT_COMPILED} throws {@link IllegalStateException}.
     */
    @SuppressWarnings("unchecked")
    public List<@Nullable Object> runForList(String operation, LuaScript script, byte[][] keys, byte[]... args) {
        Object result = StoreBudget.call(operation, () -> runWithin(operation, script, ScriptPort.Answer.MULTI, keys, args));
        if (!(result instanceof List<?> list)) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered no array"));
        }
        return (List<@Nullable Object>) list;
    }

    /** {@link #runForList(String, LuaScript, byte[][], byte[][])} without blocking, failing as {@link #runForIntegerAsync} does. */
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<@Nullable Object>> runForListAsync(String operation, LuaScript script, byte[][] keys,
            byte[]... args) {
        return runAsync(operation, script, ScriptPort.Answer.MULTI, keys, args).thenApply(result -> {
            if (!(result instanceof List<?> list)) {
                throw new StoreUnavailableException(operation, new IllegalStateException("script answered no array"));
            }
            return (List<@Nullable Object>) list;
        });
    }

    /**
     * {@link #runForInteger} without blocking: the stage fails with {@link StoreUnavailableException}
     * as the blocking call would throw it, also when the call's budget runs out (the command is then
     * cancelled).
     */
    public CompletableFuture<Long> runForIntegerAsync(String operation, LuaScript script, byte[] key, byte[]... args) {
        return runAsync(operation, script, ScriptPort.Answer.INTEGER, key, args).thenApply(result -> {
            if (!(result instanceof Long integer)) {
                throw new StoreUnavailableException(operation, new IllegalStateException("script answered no integer"));
            }
            return integer;
        });
    }

    /** {@link #runForList} without blocking, failing as {@link #runForIntegerAsync} does. */
    @SuppressWarnings("unchecked")
    public CompletableFuture<List<@Nullable Object>> runForListAsync(String operation, LuaScript script, byte[] key,
            byte[]... args) {
        return runAsync(operation, script, ScriptPort.Answer.MULTI, key, args).thenApply(result -> {
            if (!(result instanceof List<?> list)) {
                throw new StoreUnavailableException(operation, new IllegalStateException("script answered no array"));
            }
            return (List<@Nullable Object>) list;
        });
    }

    /** The UTF-8 text of a key, for messages. */
    public static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    private @Nullable Object run(String operation, LuaScript script, ScriptPort.Answer answer, byte[] key, byte[][] args) {
        return StoreBudget.call(operation, () -> runWithin(operation, script, answer, new byte[][] {key}, args));
    }

    private @Nullable Object runWithin(String operation, LuaScript script, ScriptPort.Answer answer, byte[][] keys,
            byte[][] args) {
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
            throw unavailable(operation, keys, e);
        }
    }

    private CompletableFuture<@Nullable Object> runAsync(String operation, LuaScript script, ScriptPort.Answer answer,
            byte[] key, byte[][] args) {
        return runAsync(operation, script, answer, new byte[][] {key}, args);
    }

    private CompletableFuture<@Nullable Object> runAsync(String operation, LuaScript script, ScriptPort.Answer answer,
            byte[][] keys, byte[][] args) {
        long deadline = System.nanoTime() + budgetNanos;
        CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
        AtomicReference<@Nullable CompletableFuture<@Nullable Object>> inFlight = new AtomicReference<>();
        CompletableFuture<@Nullable Object> first = port.evalshaAsync(operation, script.sha(), answer, keys, args, deadline);
        inFlight.set(first);
        first.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else if (cause(failure) instanceof ScriptErrorReply reply && reply.isNoScript()) {
                CompletableFuture<@Nullable Object> again = port.evalAsync(operation, script.source(), answer, keys, args, deadline);
                inFlight.set(again);
                again.whenComplete((reloaded, failed) -> {
                    if (failed == null) {
                        result.complete(reloaded);
                    } else {
                        result.completeExceptionally(translate(operation, keys, cause(failed)));
                    }
                });
            } else {
                result.completeExceptionally(translate(operation, keys, cause(failure)));
            }
        });
        CompletableFuture<@Nullable Object> budgeted = new CompletableFuture<>();
        result.orTimeout(budgetNanos, TimeUnit.NANOSECONDS).whenComplete((value, failure) -> {
            if (failure == null) {
                budgeted.complete(value);
                return;
            }
            Throwable cause = cause(failure);
            if (cause instanceof TimeoutException) {
                // over budget: a command not yet sent never is, one in flight is cancelled
                CompletableFuture<@Nullable Object> pending = inFlight.get();
                if (pending != null) {
                    pending.cancel(true);
                }
                budgeted.completeExceptionally(new StoreUnavailableException(operation + " (over budget)", cause));
            } else {
                budgeted.completeExceptionally(cause);
            }
        });
        return budgeted;
    }

    private static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** The {@link StoreUnavailableException} the blocking call throws for {@code failure}. */
    private static RuntimeException translate(String operation, byte[][] keys, Throwable failure) {
        if (failure instanceof ScriptErrorReply reply) {
            return unavailable(operation, keys, reply);
        }
        if (failure instanceof IllegalArgumentException refused) {
            return refused;
        }
        return failure instanceof StoreUnavailableException unavailable ? unavailable : new StoreUnavailableException(operation, failure);
    }

    /**
     * An error reply as {@link StoreUnavailableException}: a value the stores did not write names its
     * key (the first key, or the one a {@code #n} after the code picks); the failure of a script's
     * user-written part is an {@link IllegalStateException}.
     */
    private static RuntimeException unavailable(String operation, byte[][] keys, ScriptErrorReply e) {
        String message = String.valueOf(e.getMessage());
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (message.startsWith(SCRIPT_FAILED)) {
            return new IllegalStateException(operation + " failed: " + message.substring(SCRIPT_FAILED.length()).trim(), cause);
        }
        if (message.startsWith(NOT_COMPILED)) {
            return new IllegalStateException(operation + " does not compile: " + message, cause);
        }
        if (message.startsWith(CORRUPT) || message.startsWith("WRONGTYPE")) {
            String reason = message.startsWith(CORRUPT) ? message.substring(CORRUPT.length()).trim() : "another Redis type";
            byte[] key = keys[0];
            Matcher index = KEY_INDEX.matcher(reason);
            if (index.lookingAt()) {
                int i = Integer.parseInt(index.group(1)) - 1;
                if (i >= 0 && i < keys.length) {
                    key = keys[i];
                }
                reason = reason.substring(index.end());
            }
            reason = SCRIPT_LOCATION.matcher(reason).replaceFirst("");
            return new StoreUnavailableException(operation, new CorruptValueException(text(key), reason, cause));
        }
        return new StoreUnavailableException(operation, cause);
    }
}
