package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.internal.RedisScriptExecutor;
import io.onlyonce.redis.internal.WindowScript;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;

/**
 * {@link WindowStore} on Redis: one counter per fingerprint, {@code {prefix}w:{fingerprint hex}}
 * (layout in the {@linkplain io.onlyonce.redis package documentation}). The first hit writes
 * {@code 1} with a relative TTL of the window ({@code PX}); later hits {@code INCR} it, which keeps
 * the TTL, so repeats never extend the window. The window ends when Redis expires the key, on
 * Redis's clock; the hit's {@link WindowHit#remaining()} is the key's {@code PTTL}. One Lua script
 * counts and reads, so of concurrent hits exactly one is first and no two get the same count, in a
 * Cluster as well.
 *
 * <p>A key that holds anything but a counter with a TTL makes {@link #hit} throw
 * {@link StoreUnavailableException} whose cause says the value is corrupt. The store does not own
 * the connection. Every Lettuce failure surfaces as {@link StoreUnavailableException}. Thread-safe.
 */
public final class RedisWindowStore implements WindowStore {

    private final RedisScriptExecutor redis;
    private final RedisKeys keys;

    private RedisWindowStore(RedisScriptExecutor redis, RedisStoreConfig config) {
        this.redis = redis;
        this.keys = new RedisKeys(config.keyPrefix());
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisWindowStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(RedisScriptExecutor.of(connection, config.commandTimeout()), config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisWindowStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(RedisScriptExecutor.of(connection, config.commandTimeout()), config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisWindowStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(RedisScriptExecutor.of(connection, config.commandTimeout()), config);
    }

    /**
     * A store on a connection made on first use, which it may share with the other stores, so
     * that the application starts while Redis is down.
     */
    public static RedisWindowStore of(RedisStoreConnection connection, RedisStoreConfig config) {
        return new RedisWindowStore(RedisScriptExecutor.of(connection.port(), config.commandTimeout()), config);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when {@code window} is not positive
     */
    @Override
    public WindowHit hit(Fingerprint key, Duration window) {
        long windowMillis = millis(window, "window");
        return WindowScript.toHit(redis.runForList("hit", WindowScript.HIT, keys.window(key), decimal(windowMillis)));
    }

    @Override
    public void release(Fingerprint key) {
        redis.runForInteger("release", WindowScript.RELEASE, keys.window(key));
    }
}
