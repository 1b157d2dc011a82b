package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.ttlMillis;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.api.StatefulConnection;
import io.onlyonce.redis.internal.LuaScript;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.internal.RedisScriptExecutor;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Instant;
import java.util.Base64;

/**
 * {@link TokenStore} on Redis. Tokens are packed into small hashes, one per expiry minute and
 * shard, {@code {prefix}t:{bucket}:{shard}}, so that they stay in Redis's compact listpack encoding
 * (about 32 bytes per token in a hash of a hundred, against about 117 for a key of its own): the
 * field is the 16 raw id bytes, the value the expiry in epoch millis, negated once the token is
 * consumed. The layout is in the {@linkplain io.onlyonce.redis package documentation}.
 *
 * <p>Save, consume and restore are each one Lua script on one hash, so a token is consumed by
 * exactly one caller in a Cluster as well. Decisions compare against the caller's {@code now}; the
 * hash's TTL (end of its minute plus one second) only reclaims memory.
 *
 * <p>The store does not own the connection. Every Lettuce failure surfaces as
 * {@link io.onlyonce.StoreUnavailableException}. Thread-safe.
 */
public final class RedisTokenStore implements TokenStore {

    /** Width of an expiry bucket: one hash per minute (and shard). */
    private static final long BUCKET_MILLIS = 60_000;
    /** How long a hash outlives the end of its minute. */
    private static final long GRACE_MILLIS = 1_000;

    /**
     * ARGV: field, expiresAt, TTL. Adds the token unless present and never shortens the hash's TTL,
     * so a caller whose clock runs ahead cannot cut the life of tokens others saved. Answers 1 if added.
     */
    private static final LuaScript SAVE = new LuaScript("save", """
            local added = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
            local ttl = tonumber(ARGV[3])
            if redis.call('PTTL', KEYS[1]) < ttl then
              redis.call('PEXPIRE', KEYS[1], ttl)
            end
            return added
            """);

    /** ARGV: field, now. A created token (positive expiry) still alive becomes consumed. Answers 1 or 0. */
    private static final LuaScript CONSUME = new LuaScript("consume", """
            local value = redis.call('HGET', KEYS[1], ARGV[1])
            if value and tonumber(value) > tonumber(ARGV[2]) then
              redis.call('HSET', KEYS[1], ARGV[1], '-' .. value)
              return 1
            end
            return 0
            """);

    /** ARGV: field, now. A consumed token (negative expiry) still alive becomes created. Answers 1 or 0. */
    private static final LuaScript RESTORE = new LuaScript("restore", """
            local value = redis.call('HGET', KEYS[1], ARGV[1])
            if value and tonumber(value) < 0 and -tonumber(value) > tonumber(ARGV[2]) then
              redis.call('HSET', KEYS[1], ARGV[1], string.sub(value, 2))
              return 1
            end
            return 0
            """);

    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final RedisScriptExecutor redis;
    private final RedisKeys keys;
    private final int shards;

    private RedisTokenStore(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        this.redis = RedisScriptExecutor.of(connection);
        this.keys = new RedisKeys(config.keyPrefix());
        this.shards = config.tokenShards();
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisTokenStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisTokenStore(connection, config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisTokenStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisTokenStore(connection, config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisTokenStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisTokenStore(connection, config);
    }

    @Override
    public void save(OneTimeToken token, Instant now) {
        long expiresAt = token.expiresAt().toEpochMilli();
        long bucket = Math.floorDiv(expiresAt, BUCKET_MILLIS);
        long deadline = (bucket + 1) * BUCKET_MILLIS + GRACE_MILLIS;
        byte[] id = id(token);
        redis.runForInteger("save token", SAVE, key(bucket, id),
                id, decimal(expiresAt), decimal(ttlMillis(deadline, now.toEpochMilli())));
    }

    @Override
    public boolean consume(OneTimeToken token, Instant now) {
        return transition("consume token", CONSUME, token, now);
    }

    @Override
    public boolean restore(OneTimeToken token, Instant now) {
        return transition("restore token", RESTORE, token, now);
    }

    private boolean transition(String operation, LuaScript script, OneTimeToken token, Instant now) {
        byte[] id = id(token);
        long bucket = Math.floorDiv(token.expiresAt().toEpochMilli(), BUCKET_MILLIS);
        return redis.runForInteger(operation, script, key(bucket, id), id, decimal(now.toEpochMilli())) == 1;
    }

    private byte[] key(long bucket, byte[] id) {
        int shard = (((id[0] & 0xFF) << 8) | (id[1] & 0xFF)) % shards;
        return keys.tokens(bucket, shard);
    }

    /** The 16 raw id bytes ({@link OneTimeToken} guarantees the canonical form, so ids never alias). */
    private static byte[] id(OneTimeToken token) {
        return DECODER.decode(token.id());
    }
}
