package io.onlyonce.redis.script;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The SPI under {@link ScriptRunner}: how it reaches Redis through one client. Two commands,
 * {@code EVALSHA} and {@code EVAL} of one script with its keys and arguments, answered by a
 * deadline. Implementations: the one straight on a Lettuce connection (inside this module, made by
 * {@code io.onlyonce.redis.LettuceScripts.runner(connection, budget)} and
 * {@code RedisStoreConnection}), and the one over Spring Data Redis' {@code RedisConnectionFactory}
 * (Jedis, Redisson, Lettuce) in {@code onlyonce-redis-spring-data}. Everything above the port (the
 * {@code NOSCRIPT} fallback, the budget, what an error reply means, the scripts, the key layout and
 * the value encoding of the stores) is the runner's and the stores', so a record written through
 * one client is read through any other.
 *
 * <p>An implementation answers within the deadline or throws:
 * <ul>
 *   <li>an error reply from Redis (including {@code NOSCRIPT}) as {@link ScriptErrorReply}; a port
 *     that cannot tell a reply from other failures by type reports only those that
 *     {@link ScriptErrorReply#isActedOn(String)} names;</li>
 *   <li>every other failure (no connection, no answer by the deadline, a closed client) as
 *     {@link io.onlyonce.StoreUnavailableException};</li>
 *   <li>on a Cluster connection, keys that do not all hash to one slot as
 *     {@link IllegalArgumentException}, before anything is sent ({@link ClusterSlots}).</li>
 * </ul>
 * Answers come as Redis' {@code EVAL} reply types: integers as {@link Long}, arrays as a
 * {@code List} (nested as sent), bulk strings as {@code byte[]}. Implementations are thread-safe.
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
     * @param operation what the caller is doing, for messages
     * @param sha the script's lower-case hex SHA-1 ({@link LuaScript#sha()})
     * @param answer the reply type the script answers
     * @param keys the script's {@code KEYS}
     * @param args the script's {@code ARGV}
     * @param deadline {@link System#nanoTime()} by which the answer must be there
     * @return the answer, as the reply type says; {@code null} for a nil reply
     */
    @Nullable Object evalsha(String operation, String sha, Answer answer, byte[][] keys, byte[][] args, long deadline);

    /**
     * {@code EVAL source keys args}, which also caches the script on the server that runs it.
     *
     * @param source the script's UTF-8 source ({@link LuaScript#source()})
     * @see #evalsha
     */
    @Nullable Object eval(String operation, byte[] source, Answer answer, byte[][] keys, byte[][] args, long deadline);

    /**
     * {@link #evalsha} without blocking the caller: the stage fails as the blocking call throws
     * ({@link ScriptErrorReply}, {@link io.onlyonce.StoreUnavailableException} or
     * {@link IllegalArgumentException}). By default the blocking call runs on a daemon thread of a
     * pool shared by every port, within {@code deadline} as always, so a port whose client only
     * blocks needs nothing more (cancelling the stage then leaves that call to its deadline). The
     * Lettuce port sends the command on Lettuce's asynchronous API instead, on no thread of its
     * own, and cancelling the stage cancels the command (one not yet sent is never sent).
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

    /** Releases what the port made; a connection or factory given to it stays open. */
    @Override
    void close();
}
