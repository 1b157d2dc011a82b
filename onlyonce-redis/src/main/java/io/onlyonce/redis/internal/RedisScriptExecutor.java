package io.onlyonce.redis.internal;

import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Runs the stores' Lua scripts through a {@link ScriptPort} (Lettuce directly, or Spring Data
 * Redis' {@code RedisConnectionFactory} for Jedis, Redisson and Lettuce) and turns every failure
 * into a {@link StoreUnavailableException}.
 *
 * <p>Every call has a budget of its own: it waits for its connection (when that is made on first
 * use) and its answer at most that long, whatever the client's command timeout. A call over
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
 * <p>Thread-safe, as the ports are.
 */
public final class RedisScriptExecutor {

    /** The error code the scripts answer when a key holds a value they did not write. */
    public static final String CORRUPT = "ONLYONCE_CORRUPT";

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

    /** The UTF-8 text of a key, for messages. */
    public static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    private @Nullable Object run(String operation, LuaScript script, ScriptPort.Answer answer, byte[] key, byte[][] args) {
        byte[][] keys = {key};
        long deadline = System.nanoTime() + budgetNanos;
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
            String message = String.valueOf(e.getMessage());
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (message.startsWith(CORRUPT) || message.startsWith("WRONGTYPE")) {
                String reason = message.startsWith(CORRUPT) ? message.substring(CORRUPT.length()).trim() : "another Redis type";
                throw new StoreUnavailableException(operation, new CorruptValueException(text(key), reason, cause));
            }
            throw new StoreUnavailableException(operation, cause);
        }
    }
}
