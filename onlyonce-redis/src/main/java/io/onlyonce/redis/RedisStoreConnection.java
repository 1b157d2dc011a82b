package io.onlyonce.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.redis.internal.ConnectionHolder;
import io.onlyonce.redis.internal.LettuceScriptPort;
import io.onlyonce.redis.internal.ScriptPort;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

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
     * A connection through another client than Lettuce: the way {@code onlyonce-redis-spring-data}
     * hands the stores a Spring Data {@code RedisConnectionFactory} (Jedis, Redisson). Not meant
     * for applications: build one with that module's {@code SpringDataRedisStoreConnection}.
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

    /** Whether the connection has been made (it may be reconnecting after a server restart). */
    public boolean isConnected() {
        return port.isConnected();
    }

    ScriptPort port() {
        return port;
    }

    /** Closes the connection, if made; the stores then fail with {@link io.onlyonce.StoreUnavailableException}. */
    @Override
    public void close() {
        port.close();
    }
}
