package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.ttlMillis;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.internal.IdempotencyValue;
import io.onlyonce.redis.internal.LuaScript;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.internal.RedisScriptExecutor;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.StoredResponseCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link IdempotencyStore} on Redis: one binary string per record under
 * {@code {prefix}i:{scope}:{name}} (layout in the {@linkplain io.onlyonce.redis package
 * documentation}), claim, complete and release each one Lua script on that single key, so they are
 * atomic on a standalone server, through Sentinel and in a Cluster.
 *
 * <p>Every decision compares against the caller's {@code now}, at millisecond precision. Each key
 * carries a TTL until its {@code expiresAt}, measured from the same {@code now}; it only reclaims
 * memory, since a record past its {@code expiresAt} is treated as absent whether or not Redis has
 * dropped it yet.
 *
 * <p>The store does not own the connection: close it yourself after the store's last use. Every
 * Lettuce failure surfaces as {@link io.onlyonce.StoreUnavailableException}. Thread-safe.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

    /** The shared test: the record exists, is in progress, is held by ARGV[2], its lease runs at ARGV[1]. */
    private static final String HOLDER_CHECK = """
            local current = redis.call('GET', KEYS[1])
            if not current or string.sub(current, 1, 1) ~= 'P' or string.sub(current, 15, 36) ~= ARGV[2]
                or tonumber(string.sub(current, 2, 14)) <= tonumber(ARGV[1]) then
              return 0
            end
            """;

    /** ARGV: now, new value, TTL. Answers the live record, or nil after writing the new one. */
    private static final LuaScript CLAIM = new LuaScript("claim", """
            local current = redis.call('GET', KEYS[1])
            if current and tonumber(string.sub(current, 2, 14)) > tonumber(ARGV[1]) then
              return current
            end
            redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
            return false
            """);

    /** ARGV: now, owner, status and expiresAt of the completed record, response, TTL. Answers 1 or 0. */
    private static final LuaScript COMPLETE = new LuaScript("complete", HOLDER_CHECK + """
            redis.call('SET', KEYS[1], ARGV[3] .. string.sub(current, 15, 68) .. ARGV[4], 'PX', ARGV[5])
            return 1
            """);

    /** ARGV: now, owner. Answers 1 or 0. */
    private static final LuaScript RELEASE = new LuaScript("release", HOLDER_CHECK + """
            redis.call('DEL', KEYS[1])
            return 1
            """);

    private final RedisScriptExecutor redis;
    private final RedisKeys keys;

    private RedisIdempotencyStore(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        this.redis = RedisScriptExecutor.of(connection);
        this.keys = new RedisKeys(config.keyPrefix());
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisIdempotencyStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(connection, config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisIdempotencyStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(connection, config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisIdempotencyStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(connection, config);
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Instant now, Duration lease) {
        long nowMillis = now.toEpochMilli();
        long expiresAt = now.plus(lease).toEpochMilli();
        OwnerToken owner = OwnerToken.random();
        byte[] existing = redis.runForValue("claim", CLAIM, keys.idempotency(key),
                decimal(nowMillis),
                IdempotencyValue.inProgress(expiresAt, owner, fingerprint),
                decimal(ttlMillis(expiresAt, nowMillis)));
        return existing == null
                ? new ClaimResult.Claimed(owner)
                : new ClaimResult.Existing(IdempotencyValue.decode(key, existing));
    }

    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, StoredResponse response, Instant now, Duration retention) {
        long nowMillis = now.toEpochMilli();
        long expiresAt = now.plus(retention).toEpochMilli();
        return redis.runForInteger("complete", COMPLETE, keys.idempotency(key),
                decimal(nowMillis),
                IdempotencyValue.owner(owner),
                IdempotencyValue.statusAndExpiry(IdempotencyValue.COMPLETED, expiresAt),
                StoredResponseCodec.encode(response),
                decimal(ttlMillis(expiresAt, nowMillis))) == 1;
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner, Instant now) {
        return redis.runForInteger("release", RELEASE, keys.idempotency(key),
                decimal(now.toEpochMilli()),
                IdempotencyValue.owner(owner)) == 1;
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key, Instant now) {
        byte[] value = redis.get("find", keys.idempotency(key));
        if (value == null) {
            return Optional.empty();
        }
        IdempotencyRecord record = IdempotencyValue.decode(key, value);
        return now.isBefore(record.expiresAt()) ? Optional.of(record) : Optional.empty();
    }
}
