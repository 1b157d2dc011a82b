package io.onlyonce.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.redis.internal.ConnectionHolder;
import io.onlyonce.redis.internal.LettuceScriptPort;
import io.onlyonce.redis.script.ScriptPort;
import io.onlyonce.redis.script.ScriptRunner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A connection for the Redis stores that is made on first use, so that an application starts
 * while Redis is down. Give one to each store's {@code of(RedisStoreConnection, RedisStoreConfig)}:
 * they share it.
 *
 * <pre>{@code
 * RedisStoreConnection connection = RedisStoreConnection.onFirstUse(() -> client,
 *         made -> RedisEvictionPolicy.check(made).ifPresent(log::warn));
 * IdempotencyStore store = RedisIdempotencyStore.of(connection, RedisStoreConfig.ofDefaults());
 * }</pre>
 *
 * <p>The first store call opens the connection (with {@code ByteArrayCodec}, on a
 * {@link RedisClient} or a {@link RedisClusterClient}) on a thread of its own and waits for it at
 * most its budget ({@link RedisStoreConfig#commandTimeout()}); calls that arrive meanwhile wait
 * for the same attempt. While Redis cannot be reached, calls throw
 * {@link io.onlyonce.StoreUnavailableException} within their budget, and a later call tries again.
 * Once made, the connection is kept, and Lettuce reconnects it after a server restart (its
 * {@code autoReconnect}, on by default). While a standalone (or Sentinel) connection is
 * disconnected, calls fail at once instead of queueing until their budget ends, and the connection
 * is made anew in the background (at most twice a second), so the stores answer again as soon as
 * the server does rather than after Lettuce's reconnect back-off (up to 30 s). Thread-safe.
 */
public final class RedisStoreConnection implements AutoCloseable {

    private static final byte[] PING = "return 1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] NONE = new byte[0][];

    private final ScriptPort port;

    private RedisStoreConnection(ScriptPort port) {
        this.port = port;
    }

    /**
     * A connection through another client than Lettuce, given as its {@link ScriptPort}: the way
     * {@code onlyonce-redis-spring-data} hands the stores a Spring Data {@code RedisConnectionFactory}
     * (Jedis, Redisson). Applications build that one with its {@code SpringDataRedisStoreConnection}.
     * Closing the connection closes the port.
     */
    public static RedisStoreConnection of(ScriptPort port) {
        return new RedisStoreConnection(Objects.requireNonNull(port, "port"));
    }

    /**
     * A connection of {@code client}, made on first use.
     *
     * @param client the client, asked for only when connecting (a framework may create it after the
     *     stores); a {@link RedisClient} (standalone or Sentinel) or a {@link RedisClusterClient}
     */
    public static RedisStoreConnection onFirstUse(Supplier<? extends AbstractRedisClient> client) {
        return onFirstUse(client, made -> { });
    }

    /**
     * A connection of {@code client}, made on first use; {@code onConnect} is told of it once, when
     * it has been made, on the connecting thread and while the stores already use it (a check such
     * as {@link RedisEvictionPolicy#check} belongs there).
     */
    public static RedisStoreConnection onFirstUse(Supplier<? extends AbstractRedisClient> client,
            Consumer<? super StatefulConnection<byte[], byte[]>> onConnect) {
        Objects.requireNonNull(client, "client");
        return new RedisStoreConnection(new LettuceScriptPort(
                ConnectionHolder.onFirstUse(() -> connect(client.get()), onConnect)));
    }

    private static StatefulConnection<byte[], byte[]> connect(AbstractRedisClient client) {
        if (client instanceof RedisClusterClient cluster) {
            return cluster.connect(ByteArrayCodec.INSTANCE);
        }
        if (client instanceof RedisClient standalone) {
            return standalone.connect(ByteArrayCodec.INSTANCE);
        }
        throw new IllegalArgumentException("a RedisClient or a RedisClusterClient is required, not " + client);
    }

    /**
     * Whether Redis answers now: a script that only returns 1, waited for at most {@code timeout}
     * (connecting first, if the connection has not been made yet). What a circuit breaker's probe
     * asks while the stores' calls are refused; never throws.
     */
    public boolean ping(Duration timeout) {
        try {
            port.eval("ping", PING, ScriptPort.Answer.INTEGER, NONE, NONE, System.nanoTime() + timeout.toNanos());
            return true;
        } catch (RuntimeException unavailable) {
            return false;
        }
    }

    /**
     * {@link #ping} without blocking: the future answers whether Redis answered within
     * {@code timeout}, and never fails. A connection not made yet begins to be made, so calling it
     * once at start-up spares the first store call the wait for the connection, without holding up
     * the start. What a reactive circuit breaker's probe asks.
     */
    public CompletableFuture<Boolean> pingAsync(Duration timeout) {
        CompletableFuture<@Nullable Object> call;
        try {
            call = port.evalAsync("ping", PING, ScriptPort.Answer.INTEGER, NONE, NONE, System.nanoTime() + timeout.toNanos());
        } catch (RuntimeException unavailable) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> call.cancel(true));
        return call.handle((answer, failure) -> failure == null);
    }

    /** Whether the connection has been made (it may be reconnecting after a server restart). */
    public boolean isConnected() {
        return port.isConnected();
    }

    /**
     * A {@link ScriptRunner} on this connection, for scripts of the application's own with the
     * stores' handling of {@code NOSCRIPT}, failures and corrupt values; the stores made with
     * {@code of(RedisStoreConnection, RedisStoreConfig)} run theirs with one.
     *
     * @param budget the budget of each call, as {@link RedisStoreConfig#commandTimeout()} is the
     *     stores'; positive
     */
    public ScriptRunner runner(Duration budget) {
        return ScriptRunner.of(port, budget);
    }

    /** Closes the connection, if made; the stores then fail with {@link io.onlyonce.StoreUnavailableException}. */
    @Override
    public void close() {
        port.close();
    }
}
