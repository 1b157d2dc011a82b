package io.onlyonce.redis.internal;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.onlyonce.StoreUnavailableException;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs the stores' Lua scripts and single commands on one synchronous Lettuce API, standalone
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

    private final RedisClusterCommands<byte[], byte[]> commands;

    /**
     * @param commands the synchronous API of a standalone connection ({@code RedisCommands}) or of
     *     a Cluster connection ({@code RedisAdvancedClusterCommands}); both extend this type
     */
    public RedisScriptExecutor(RedisClusterCommands<byte[], byte[]> commands) {
        this.commands = commands;
    }

    /** Runs a script that answers an integer. */
    public long runForInteger(String operation, LuaScript script, byte[] key, byte[]... args) {
        return this.<Long>run(operation, script, ScriptOutputType.INTEGER, key, args);
    }

    /** Runs a script that answers a bulk string or nil. */
    public byte @Nullable [] runForValue(String operation, LuaScript script, byte[] key, byte[]... args) {
        return run(operation, script, ScriptOutputType.VALUE, key, args);
    }

    /** {@code GET key}. */
    public byte @Nullable [] get(String operation, byte[] key) {
        return call(operation, () -> commands.get(key));
    }

    private <T extends @Nullable Object> T run(
            String operation, LuaScript script, ScriptOutputType type, byte[] key, byte[][] args) {
        byte[][] keys = {key};
        return call(operation, () -> {
            try {
                return commands.<T>evalsha(script.sha(), type, keys, args);
            } catch (RedisNoScriptException e) {
                return commands.<T>eval(script.source(), type, keys, args);
            }
        });
    }

    /**
     * Runs one Lettuce call. A {@link RedisException} is every failure Lettuce reports (refused
     * connection, timeout, an error reply); a {@link CancellationException} surfaces when the
     * connection closes while the command is in flight.
     */
    private static <T extends @Nullable Object> T call(String operation, Supplier<T> command) {
        try {
            return command.get();
        } catch (RedisException | CancellationException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }
}
