package io.onlyonce.redis.springdata;

import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.springdata.internal.SpringDataScriptPort;
import java.util.function.Consumer;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link RedisStoreConnection} over Spring Data Redis' {@link RedisConnectionFactory}, for
 * applications whose Redis client is Jedis ({@code JedisConnectionFactory}) or Redisson
 * ({@code RedissonConnectionFactory} of {@code redisson-spring-data}); a Lettuce factory works too,
 * though the stores' direct Lettuce connection ({@link RedisStoreConnection#onFirstUse}) is faster.
 * Give it to each store's {@code of(RedisStoreConnection, RedisStoreConfig)}:
 *
 * <pre>{@code
 * RedisStoreConnection connection = SpringDataRedisStoreConnection.of(connectionFactory,
 *         SpringDataRedisStoreConnection.DEFAULT_THREADS, log::warn);
 * IdempotencyStore store = RedisIdempotencyStore.of(connection, RedisStoreConfig.ofDefaults());
 * }</pre>
 *
 * <p>The stores run the same scripts on the same keys with the same values as on the direct Lettuce
 * connection, so instances on different clients share their records. Nothing connects before the
 * first store call, so the application starts while Redis is down.
 *
 * <p>Every store call keeps its budget ({@link io.onlyonce.redis.RedisStoreConfig#commandTimeout()},
 * 2 s by default) whatever the client's own timeout: the client's blocking call runs on a thread of a
 * small pool of this connection, and the store call waits for it at most its budget, then throws
 * {@link io.onlyonce.StoreUnavailableException}. A blocking client cannot be cancelled, so a call
 * over budget leaves its thread waiting until the client's own timeout ends it (Jedis: its socket
 * timeout, {@code spring.data.redis.timeout}; Redisson: {@code timeout} times its retry attempts).
 * At most {@code threads} calls wait on Redis at once and as many more are queued; beyond that a
 * call is refused at once with {@code StoreUnavailableException}, so a hung Redis costs at most
 * {@code threads} threads, never one per request. A queued call whose budget has passed is never
 * sent.
 */
public final class SpringDataRedisStoreConnection {

    /** The default number of threads: the most store calls that wait on Redis at once. */
    public static final int DEFAULT_THREADS = 64;

    private SpringDataRedisStoreConnection() {
    }

    /** A connection over {@code factory} with {@value #DEFAULT_THREADS} threads and no eviction check. */
    public static RedisStoreConnection of(RedisConnectionFactory factory) {
        return of(factory, DEFAULT_THREADS, warning -> { });
    }

    /**
     * A connection over {@code factory}.
     *
     * @param factory the application's factory; neither started nor stopped here
     * @param threads the most store calls that wait on Redis at once, positive
     * @param evictionWarning told once, after the first call that reached Redis, when a server can
     *     evict the stores' keys (see {@link io.onlyonce.redis.RedisEvictionPolicy}); not told when
     *     every server runs {@code noeviction} or when {@code CONFIG GET} is refused
     */
    public static RedisStoreConnection of(RedisConnectionFactory factory, int threads, Consumer<? super String> evictionWarning) {
        return RedisStoreConnection.of(new SpringDataScriptPort(factory, threads, evictionWarning));
    }
}
