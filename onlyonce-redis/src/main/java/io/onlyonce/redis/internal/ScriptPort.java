package io.onlyonce.redis.internal;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * How the Redis stores reach Redis: {@code EVALSHA} and {@code EVAL} of one script with its keys and
 * arguments, answered by a deadline. Two implementations: {@link LettuceScriptPort}, straight on a
 * Lettuce connection, and the one over Spring Data Redis' {@code RedisConnectionFactory} (Jedis,
 * Redisson, Lettuce) in {@code onlyonce-redis-spring-data}. Everything above this port (the scripts,
 * the key layout, the value encoding, the {@code NOSCRIPT} fallback, the corrupt-value checks) is
 * shared, so a record written through one client is read through any other.
 *
 * <p>An implementation answers within the deadline or throws: an error reply from Redis (including
 * {@code NOSCRIPT}) as {@link ScriptErrorReply}, every other failure (no connection, timeout, a
 * closed client) as {@link io.onlyonce.StoreUnavailableException}. A script may have several keys;
 * on a Cluster connection, keys that do not all hash to one slot are refused with
 * {@link IllegalArgumentException} before anything is sent ({@link ClusterSlots}). Thread-safe.
 */
public interface ScriptPort extends AutoCloseable {

    /** What the script answers, as Redis' {@code EVAL} reply types. */
    enum Answer {
        /** An integer reply: a {@link Long}. */
        INTEGER,
        /** An array reply: a {@code List} whose bulk strings are {@code byte[]} and whose integers are {@link Long}. */
        MULTI
    }

    /**
     * {@code EVALSHA sha keys args}.
     *
     * @param operation what the store is doing, for messages
     * @param deadline {@link System#nanoTime()} by which the answer must be there
     */
    @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args, long deadline);

    /** {@code EVAL source keys args}, which also caches the script on the server that runs it. */
    @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args, long deadline);

    /**
     * {@link #evalsha} without blocking the caller: the stage fails as the blocking call throws
     * ({@link ScriptErrorReply} or {@link io.onlyonce.StoreUnavailableException}), and cancelling
     * it cancels a command not yet answered. By default the blocking call runs on a thread of
     * {@link BlockingScriptCalls}, within {@code deadline} as always; {@link LettuceScriptPort}
     * sends the command on Lettuce's asynchronous API instead, on no thread of its own.
     */
    default CompletableFuture<@Nullable Object> evalshaAsync(String operation, String sha, Answer answer, byte[][] keys,
            byte[][] args, long deadline) {
        return BlockingScriptCalls.supply(() -> evalsha(operation, sha, answer, keys, args, deadline));
    }

    /** {@link #eval} without blocking the caller, as {@link #evalshaAsync}. */
    default CompletableFuture<@Nullable Object> evalAsync(String operation, byte[] source, Answer answer, byte[][] keys,
            byte[][] args, long deadline) {
        return BlockingScriptCalls.supply(() -> eval(operation, source, answer, keys, args, deadline));
    }

    /** Whether the connection has been made (it may be reconnecting). */
    boolean isConnected();

    /** Releases what the port made; a connection given to it stays open. */
    @Override
    void close();
}
