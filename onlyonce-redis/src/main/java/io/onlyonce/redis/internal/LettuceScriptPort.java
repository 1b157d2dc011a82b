package io.onlyonce.redis.internal;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.script.ClusterSlots;
import io.onlyonce.redis.script.ScriptErrorReply;
import io.onlyonce.redis.script.ScriptPort;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ScriptPort} straight on one Lettuce connection, standalone (also through Sentinel) or
 * Cluster alike. The asynchronous API is used directly, and the caller waits on the future until its
 * deadline, then cancels it (a command not yet written is never sent): the semantics of Lettuce's
 * synchronous API, with a timeout of OnlyOnce's own, without its reflective dispatch on every call.
 * On a Cluster connection, a call whose keys hash to several slots is refused with
 * {@link IllegalArgumentException} before it is sent ({@link ClusterSlots}).
 */
public final class LettuceScriptPort implements ScriptPort {

    /** How often a call waiting for its answer checks that the connection is still up. */
    private static final long DISCONNECT_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ConnectionHolder connection;

    public LettuceScriptPort(ConnectionHolder connection) {
        this.connection = connection;
    }

    @Override
    public @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args, long deadline) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(operation, deadline);
        requireOneSlot(operation, commands, keys);
        return await(operation, commands.evalsha(sha, type(answer), keys, args), deadline);
    }

    @Override
    public @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args, long deadline) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(operation, deadline);
        requireOneSlot(operation, commands, keys);
        return await(operation, commands.eval(source, type(answer), keys, args), deadline);
    }

    @Override
    public CompletableFuture<@Nullable Object> evalshaAsync(String operation, String sha, Answer answer, byte[][] keys,
            byte[][] args, long deadline) {
        return send(operation, keys, commands -> commands.evalsha(sha, type(answer), keys, args));
    }

    @Override
    public CompletableFuture<@Nullable Object> evalAsync(String operation, byte[] source, Answer answer, byte[][] keys,
            byte[][] args, long deadline) {
        return send(operation, keys, commands -> commands.eval(source, type(answer), keys, args));
    }

    /**
     * Sends the command once the connection is there, without waiting for it: a call cancelled
     * (over budget) before then is never sent, and one cancelled after is cancelled in Lettuce.
     */
    private CompletableFuture<@Nullable Object> send(String operation, byte[][] keys,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<Object>> command) {
        CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
        connection.commandsAsync(operation).whenComplete((commands, unavailable) -> {
            if (unavailable != null) {
                result.completeExceptionally(unavailable);
                return;
            }
            if (result.isDone()) {
                return;
            }
            RedisFuture<Object> sent;
            try {
                requireOneSlot(operation, commands, keys);
                sent = command.apply(commands);
            } catch (RuntimeException refused) {
                result.completeExceptionally(refused);
                return;
            }
            result.whenComplete((ignored, failure) -> {
                if (result.isCancelled()) {
                    sent.cancel(true);
                }
            });
            sent.whenComplete((value, failure) -> {
                if (failure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(translate(operation, failure));
                }
            });
        });
        return result;
    }

    private static RuntimeException translate(String operation, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof RedisCommandExecutionException e) {
            return new ScriptErrorReply(String.valueOf(e.getMessage()), e);
        }
        return cause instanceof StoreUnavailableException unavailable ? unavailable : new StoreUnavailableException(operation, cause);
    }

    /** On a Cluster connection, refuses keys of several slots before anything is sent. */
    private static void requireOneSlot(String operation, RedisClusterAsyncCommands<byte[], byte[]> commands, byte[][] keys) {
        if (keys.length > 1 && commands instanceof RedisAdvancedClusterAsyncCommands) {
            ClusterSlots.requireOneSlot(operation, keys);
        }
    }

    @Override
    public boolean isConnected() {
        return connection.isConnected();
    }

    @Override
    public void close() {
        connection.close();
    }

    private static ScriptOutputType type(Answer answer) {
        return answer == Answer.INTEGER ? ScriptOutputType.INTEGER : ScriptOutputType.MULTI;
    }

    /**
     * Waits for one answer until the call's deadline, then cancels it; also when the connection
     * drops meanwhile (a command sent as the server died is kept by Lettuce for after the reconnect,
     * which would hold the call until its deadline). Lettuce reports every failure as a
     * {@code RedisException} (refused connection, an error reply); a {@link CancellationException}
     * surfaces when the connection closes while the command is in flight.
     */
    private @Nullable Object await(String operation, RedisFuture<Object> future, long deadline) {
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    return future.get(Math.max(1, Math.min(left, DISCONNECT_CHECK_NANOS)), TimeUnit.NANOSECONDS);
                } catch (TimeoutException notYet) {
                    if (left <= DISCONNECT_CHECK_NANOS) {
                        future.cancel(true);
                        throw new StoreUnavailableException(operation, new RedisCommandTimeoutException("over budget"));
                    }
                    if (connection.isDisconnected()) {
                        future.cancel(true);
                        throw new StoreUnavailableException(operation + " (disconnected)", notYet);
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RedisCommandExecutionException reply) {
                throw new ScriptErrorReply(String.valueOf(reply.getMessage()), reply);
            }
            throw new StoreUnavailableException(operation, cause);
        } catch (CancellationException e) {
            throw new StoreUnavailableException(operation, e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(operation + " (interrupted)", e);
        }
    }
}
