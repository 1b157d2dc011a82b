package io.onlyonce.redis.internal;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import io.onlyonce.StoreUnavailableException;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * Runs the stores' Lua scripts and single commands on one Lettuce connection, standalone
 * (also through Sentinel) or Cluster alike, and turns every Lettuce failure into a
 * {@link StoreUnavailableException}.
 *
 * <p>A script runs with {@code EVALSHA}. When the server answers {@code NOSCRIPT} (restart,
 * failover, {@code SCRIPT FLUSH}) it is sent once more with {@code EVAL}, which runs it and caches
 * it on that server for the next {@code EVALSHA}. Unlike {@code SCRIPT LOAD}, which Lettuce's
 * Cluster API sends to every node, replicas included, and which fails as soon as any one of them is
 * down, {@code EVAL} goes only to the node that owns the key: one round trip, and the reload cannot
 * fail because of another node. A script that failed with {@code NOSCRIPT} never ran, so sending it
 * again cannot apply it twice; any other failure (a timeout, say) is not retried.
 *
 * <p>Thread-safe: Lettuce connections are.
 */
public final class RedisScriptExecutor {

    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final Duration timeout;

    private RedisScriptExecutor(RedisClusterAsyncCommands<byte[], byte[]> commands, Duration timeout) {
        this.commands = commands;
        this.timeout = timeout;
    }

    /**
     * An executor on a standalone (or Sentinel) or a Cluster connection. Calls wait for their
     * answer at most the connection's command timeout. The asynchronous API is used directly, and
     * the caller waits on the future: the same semantics as Lettuce's synchronous API without its
     * reflective dispatch on every call.
     */
    public static RedisScriptExecutor of(StatefulConnection<byte[], byte[]> connection) {
        if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            return new RedisScriptExecutor(cluster.async(), connection.getTimeout());
        }
        if (connection instanceof StatefulRedisConnection<byte[], byte[]> standalone) {
            return new RedisScriptExecutor(standalone.async(), connection.getTimeout());
        }
        throw new IllegalArgumentException("a standalone or Cluster connection is required");
    }

    /** Runs a script that answers an integer. */
    public long runForInteger(String operation, LuaScript script, byte[] key, byte[]... args) {
        Long result = run(operation, script, ScriptOutputType.INTEGER, key, args);
        if (result == null) {
            throw new StoreUnavailableException(operation, new IllegalStateException("script answered nil"));
        }
        return result;
    }

    /** Runs a script that answers a bulk string or nil. */
    public byte @Nullable [] runForValue(String operation, LuaScript script, byte[] key, byte[]... args) {
        return run(operation, script, ScriptOutputType.VALUE, key, args);
    }

    /** {@code GET key}. */
    public byte @Nullable [] get(String operation, byte[] key) {
        try {
            return await(commands.get(key));
        } catch (RedisException | CancellationException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }

    private <T> @Nullable T run(String operation, LuaScript script, ScriptOutputType type, byte[] key, byte[][] args) {
        byte[][] keys = {key};
        try {
            try {
                return await(commands.<T>evalsha(script.sha(), type, keys, args));
            } catch (RedisNoScriptException e) {
                return await(commands.<T>eval(script.source(), type, keys, args));
            }
        } catch (RedisException | CancellationException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }

    /**
     * Waits for one answer. Lettuce reports every failure as a {@link RedisException} (refused
     * connection, timeout, an error reply); a {@link CancellationException} surfaces when the
     * connection closes while the command is in flight.
     */
    private <T> @Nullable T await(RedisFuture<T> future) {
        return LettuceFutures.awaitOrCancel(future, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
}
