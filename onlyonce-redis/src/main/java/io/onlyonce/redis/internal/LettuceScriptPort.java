package io.onlyonce.redis.internal;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.onlyonce.StoreUnavailableException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ScriptPort} straight on one Lettuce connection, standalone (also through Sentinel) or
 * Cluster alike. The asynchronous API is used directly, and the caller waits on the future until its
 * deadline, then cancels it (a command not yet written is never sent): the semantics of Lettuce's
 * synchronous API, with a timeout of OnlyOnce's own, without its reflective dispatch on every call.
 */
public final class LettuceScriptPort implements ScriptPort {

    private final ConnectionHolder connection;

    public LettuceScriptPort(ConnectionHolder connection) {
        this.connection = connection;
    }

    @Override
    public @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args, long deadline) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(operation, deadline);
        return await(operation, commands.evalsha(sha, type(answer), keys, args), deadline);
    }

    @Override
    public @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args, long deadline) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(operation, deadline);
        return await(operation, commands.eval(source, type(answer), keys, args), deadline);
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
     * Waits for one answer until the call's deadline, then cancels it. Lettuce reports every failure
     * as a {@link RedisException} (refused connection, timeout, an error reply, and
     * {@code RedisCommandTimeoutException} for the deadline); a {@link CancellationException}
     * surfaces when the connection closes while the command is in flight.
     */
    private static @Nullable Object await(String operation, RedisFuture<Object> future, long deadline) {
        try {
            // at least 1 ns: awaitOrCancel waits without limit for 0
            return LettuceFutures.awaitOrCancel(future, Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RedisCommandExecutionException e) {
            throw new ScriptErrorReply(String.valueOf(e.getMessage()), e);
        } catch (RedisException | CancellationException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }
}
