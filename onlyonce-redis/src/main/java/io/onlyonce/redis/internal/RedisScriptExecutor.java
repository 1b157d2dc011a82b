package io.onlyonce.redis.internal;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.onlyonce.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs the stores' Lua scripts on one Lettuce connection, standalone (also through Sentinel) or
 * Cluster alike, and turns every Lettuce failure into a {@link StoreUnavailableException}.
 *
 * <p>Every call has a budget of its own: it waits for its connection (when that is made on first
 * use) and its answer at most that long, whatever the connection's command timeout. A call over
 * budget is cancelled (a command not yet written is never sent) and throws
 * {@link StoreUnavailableException}; a script already sent may still run on the server.
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
 * <p>Thread-safe: Lettuce connections are.
 */
public final class RedisScriptExecutor {

    /** The error code the scripts answer when a key holds a value they did not write. */
    public static final String CORRUPT = "ONLYONCE_CORRUPT";

    private final ConnectionHolder connection;
    private final long budgetNanos;

    private RedisScriptExecutor(ConnectionHolder connection, Duration budget) {
        this.connection = connection;
        this.budgetNanos = budget.toNanos();
    }

    /**
     * An executor on a standalone (or Sentinel) or a Cluster connection. The asynchronous API is
     * used directly, and the caller waits on the future for at most {@code budget}: the semantics
     * of Lettuce's synchronous API, with a timeout of OnlyOnce's own, without its reflective
     * dispatch on every call.
     *
     * @throws IllegalArgumentException for a connection that is neither standalone nor Cluster
     */
    public static RedisScriptExecutor of(StatefulConnection<byte[], byte[]> connection, Duration budget) {
        return new RedisScriptExecutor(ConnectionHolder.of(connection), budget);
    }

    /** An executor on the connection {@code connection} holds or makes, with {@code budget} per call. */
    public static RedisScriptExecutor of(ConnectionHolder connection, Duration budget) {
        return new RedisScriptExecutor(connection, budget);
    }

    /** Runs a script that answers an integer. */
    public long runForInteger(String operation, LuaScript script, byte[] key, byte[]... args) {
        Long result = run(operation, script, ScriptOutputType.INTEGER, key, args);
        if (result == null) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered nil"));
        }
        return result;
    }

    /**
     * Runs a script that answers an array; its bulk strings arrive as {@code byte[]}, its integers
     * as {@link Long}.
     */
    public List<@Nullable Object> runForList(String operation, LuaScript script, byte[] key, byte[]... args) {
        List<@Nullable Object> result = run(operation, script, ScriptOutputType.MULTI, key, args);
        if (result == null) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered nil"));
        }
        return result;
    }

    /**
     * {@link #runForInteger} without blocking: the stage fails with {@link StoreUnavailableException}
     * as the blocking call would throw it, also when the call's budget runs out (the command is then
     * cancelled).
     */
    public CompletableFuture<Long> runForIntegerAsync(String operation, LuaScript script, byte[] key, byte[]... args) {
        return this.<Long>runAsync(operation, script, ScriptOutputType.INTEGER, key, args).thenApply(result -> {
            if (result == null) {
                throw new StoreUnavailableException(operation, new IllegalStateException("script answered nil"));
            }
            return result;
        });
    }

    /** {@link #runForList} without blocking, failing as {@link #runForIntegerAsync} does. */
    public CompletableFuture<List<@Nullable Object>> runForListAsync(String operation, LuaScript script, byte[] key,
            byte[]... args) {
        return this.<List<@Nullable Object>>runAsync(operation, script, ScriptOutputType.MULTI, key, args).thenApply(result -> {
            if (result == null) {
                throw new StoreUnavailableException(operation, new IllegalStateException("script answered nil"));
            }
            return result;
        });
    }

    /** The UTF-8 text of a key, for messages. */
    public static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    private <T> @Nullable T run(String operation, LuaScript script, ScriptOutputType type, byte[] key, byte[][] args) {
        byte[][] keys = {key};
        long deadline = System.nanoTime() + budgetNanos;
        RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(operation, deadline);
        try {
            try {
                return await(commands.<T>evalsha(script.sha(), type, keys, args), deadline);
            } catch (RedisNoScriptException e) {
                return await(commands.<T>eval(script.source(), type, keys, args), deadline);
            }
        } catch (RedisException | CancellationException e) {
            throw translate(operation, key, e);
        }
    }

    private <T> CompletableFuture<@Nullable T> runAsync(String operation, LuaScript script, ScriptOutputType type,
            byte[] key, byte[][] args) {
        byte[][] keys = {key};
        CompletableFuture<@Nullable T> result = new CompletableFuture<>();
        AtomicReference<@Nullable Future<?>> inFlight = new AtomicReference<>();
        connection.commandsAsync(operation).whenComplete((commands, unavailable) -> {
            if (unavailable != null) {
                result.completeExceptionally(unavailable);
                return;
            }
            RedisFuture<T> first = commands.<T>evalsha(script.sha(), type, keys, args);
            inFlight.set(first);
            first.whenComplete((value, failure) -> {
                if (failure == null) {
                    result.complete(value);
                } else if (cause(failure) instanceof RedisNoScriptException) {
                    RedisFuture<T> again = commands.<T>eval(script.source(), type, keys, args);
                    inFlight.set(again);
                    again.whenComplete((reloaded, failed) -> {
                        if (failed == null) {
                            result.complete(reloaded);
                        } else {
                            result.completeExceptionally(translate(operation, key, cause(failed)));
                        }
                    });
                } else {
                    result.completeExceptionally(translate(operation, key, cause(failure)));
                }
            });
        });
        CompletableFuture<@Nullable T> budgeted = new CompletableFuture<>();
        result.orTimeout(budgetNanos, TimeUnit.NANOSECONDS).whenComplete((value, failure) -> {
            if (failure == null) {
                budgeted.complete(value);
                return;
            }
            Throwable cause = cause(failure);
            if (cause instanceof TimeoutException) {
                // over budget: a command not yet written is never sent
                Future<?> pending = inFlight.get();
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
    private static RuntimeException translate(String operation, byte[] key, Throwable failure) {
        if (failure instanceof StoreUnavailableException unavailable) {
            return unavailable;
        }
        if (failure instanceof RedisCommandExecutionException e) {
            String message = String.valueOf(e.getMessage());
            if (message.startsWith(CORRUPT) || message.startsWith("WRONGTYPE")) {
                String reason = message.startsWith(CORRUPT) ? message.substring(CORRUPT.length()).trim() : "another Redis type";
                return new StoreUnavailableException(operation, new CorruptValueException(text(key), reason, e));
            }
        }
        return new StoreUnavailableException(operation, failure);
    }

    /**
     * Waits for one answer until the call's deadline, then cancels it. Lettuce reports every failure
     * as a {@link RedisException} (refused connection, timeout, an error reply, and
     * {@code RedisCommandTimeoutException} for the deadline); a {@link CancellationException}
     * surfaces when the connection closes while the command is in flight.
     */
    private static <T> @Nullable T await(RedisFuture<T> future, long deadline) {
        // at least 1 ns: awaitOrCancel waits without limit for 0
        return LettuceFutures.awaitOrCancel(future, Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
