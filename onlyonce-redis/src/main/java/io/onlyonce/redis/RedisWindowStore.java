package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.ttlMillis;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.redis.internal.LuaScript;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.internal.RedisScriptExecutor;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.time.Instant;

/**
 * {@link WindowStore} on Redis: one key per fingerprint, {@code {prefix}w:{fingerprint hex}},
 * holding the end of its window in epoch millis (layout in the {@linkplain io.onlyonce.redis
 * package documentation}). One Lua script decides and writes, so of concurrent requests exactly
 * one is first, in a Cluster as well.
 *
 * <p>The window is judged by the caller's {@code now}, not by Redis's clock: a key whose end has
 * passed opens a new window even if Redis has not dropped it yet; its TTL only reclaims memory.
 * The store does not own the connection. Every Lettuce failure surfaces as
 * {@link io.onlyonce.StoreUnavailableException}. Thread-safe.
 */
public final class RedisWindowStore implements WindowStore {

    /** ARGV: now, end of the new window, TTL. Answers 1 if a window was opened, 0 if one is open. */
    private static final LuaScript FIRST_IN_WINDOW = new LuaScript("firstInWindow", """
            local current = redis.call('GET', KEYS[1])
            if current and tonumber(current) > tonumber(ARGV[1]) then
              return 0
            end
            redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
            return 1
            """);

    private final RedisScriptExecutor redis;
    private final RedisKeys keys;

    private RedisWindowStore(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        this.redis = RedisScriptExecutor.of(connection);
        this.keys = new RedisKeys(config.keyPrefix());
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisWindowStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(connection, config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisWindowStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(connection, config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisWindowStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(connection, config);
    }

    @Override
    public boolean firstInWindow(Fingerprint fingerprint, Duration window, Instant now) {
        long nowMillis = now.toEpochMilli();
        long end = now.plus(window).toEpochMilli();
        return redis.runForInteger("firstInWindow", FIRST_IN_WINDOW, keys.window(fingerprint),
                decimal(nowMillis), decimal(end), decimal(ttlMillis(end, nowMillis))) == 1;
    }
}
