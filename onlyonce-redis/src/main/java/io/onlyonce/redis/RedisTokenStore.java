package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.onlyonce.redis.internal.CallDeadline;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.redis.script.ScriptRunner;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;

/**
 * {@link TokenStore} on Redis. Tokens are packed into small hashes,
 * {@code {prefix}t:{bucket}:{shard}}, so that they stay in Redis's compact listpack encoding
 * (layout and figures in the {@linkplain io.onlyonce.redis package documentation}). The bucket is
 * the minute of the expiry the issuer signed into the token: a stable address that every instance
 * derives from the token alone, never used to decide whether the token is alive.
 *
 * <p>Aliveness is decided on Redis's clock: the save script reads {@code TIME} and stores the
 * token's expiry, that time plus the TTL given to {@link #save}, in epoch milliseconds of the
 * server, negated once the token is consumed; consume and restore compare it with {@code TIME}
 * again. The hash's own TTL is only ever raised, to the longest TTL saved into it plus one second,
 * so it covers every token in it and is dropped after the last of them has expired.
 *
 * <p>Save, consume and restore are each one Lua script on one hash, so a token is consumed by
 * exactly one caller in a Cluster as well. Redis always has room: {@link #save} answers
 * {@code true} or throws. A hash that holds anything these scripts did not write makes them throw
 * {@link io.onlyonce.StoreUnavailableException} whose cause says the value is corrupt. The store
 * does not own the connection. Every Lettuce failure surfaces as
 * {@link io.onlyonce.StoreUnavailableException}. Thread-safe.
 */
public final class RedisTokenStore implements TokenStore {

    /** Width of an expiry bucket: one hash per signed expiry minute (and shard). */
    private static final long BUCKET_MILLIS = 60_000;
    /** How long a hash outlives the longest-lived token saved into it. */
    private static final long GRACE_MILLIS = 1_000;

    /** Redis's time in epoch milliseconds, as {@code now}. */
    private static final String NOW = """
            local time = redis.call('TIME')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            """;

    /**
     * ARGV: field; reads the token's value into {@code value}, answering 0 for an unknown token and
     * an error for a value of another shape.
     */
    private static final String READ = """
            local value = redis.call('HGET', KEYS[1], ARGV[1])
            if not value then
              return 0
            end
            if not string.match(value, '^%-?[1-9][0-9]*$') then
              return redis.error_reply('ONLYONCE_CORRUPT not a token expiry')
            end
            """ + NOW;

    /**
     * ARGV: field, TTL in ms, TTL of the hash in ms (TTL plus grace). Adds the token unless present
     * and never shortens the hash's TTL. Answers 1 if added.
     */
    private static final LuaScript SAVE = new LuaScript("save", NOW + """
            local added = redis.call('HSETNX', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
            local keep = tonumber(ARGV[3])
            if redis.call('PTTL', KEYS[1]) < keep then
              redis.call('PEXPIRE', KEYS[1], keep)
            end
            return added
            """);

    /**
     * ARGV: field, deadline (see {@link CallDeadline}). A created token (positive expiry) still alive
     * becomes consumed. Answers 1 or 0.
     */
    private static final LuaScript CONSUME = new LuaScript("consume", CallDeadline.guard(2) + READ + """
            if string.sub(value, 1, 1) ~= '-' and tonumber(value) > now then
              redis.call('HSET', KEYS[1], ARGV[1], '-' .. value)
              return 1
            end
            return 0
            """);

    /** ARGV: field. A consumed token (negative expiry) still alive becomes created. Answers 1 or 0. */
    private static final LuaScript RESTORE = new LuaScript("restore", READ + """
            if string.sub(value, 1, 1) == '-' and tonumber(string.sub(value, 2)) > now then
              redis.call('HSET', KEYS[1], ARGV[1], string.sub(value, 2))
              return 1
            end
            return 0
            """);

    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final ScriptRunner redis;
    private final RedisKeys keys;
    private final int shards;
    private final CallDeadline deadline;

    private RedisTokenStore(ScriptRunner redis, RedisStoreConfig config) {
        this.redis = redis;
        this.deadline = new CallDeadline(redis, config.commandTimeout(), InstantSource.system());
        this.keys = new RedisKeys(config.keyPrefix());
        this.shards = config.tokenShards();
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisTokenStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisTokenStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisTokenStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisTokenStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisTokenStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisTokenStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /**
     * A store on a connection made on first use, which it may share with the other stores, so
     * that the application starts while Redis is down.
     */
    public static RedisTokenStore of(RedisStoreConnection connection, RedisStoreConfig config) {
        return new RedisTokenStore(connection.runner(config.commandTimeout()), config);
    }

    /**
     * {@inheritDoc} Saving a token again changes nothing but the hash's TTL, which may grow.
     *
     * @return always {@code true}: Redis has no bound of its own here (see {@code maxmemory})
     * @throws IllegalArgumentException when {@code ttl} is not positive
     */
    @Override
    public boolean save(OneTimeToken token, Duration ttl) {
        long ttlMillis = millis(ttl, "ttl");
        byte[] id = id(token);
        redis.runForInteger("save token", SAVE, key(token, id),
                id, decimal(ttlMillis), decimal(Math.addExact(ttlMillis, GRACE_MILLIS)));
        return true;
    }

    @Override
    public boolean consume(OneTimeToken token) {
        byte[] id = id(token);
        byte[] key = key(token, id);
        boolean consumed = redis.runForInteger("consume token", CONSUME, key, id, deadline.next()) == 1;
        deadline.answered(key);
        return consumed;
    }

    @Override
    public boolean restore(OneTimeToken token) {
        byte[] id = id(token);
        return redis.runForInteger("restore token", RESTORE, key(token, id), id) == 1;
    }

    /** The hash of the token's signed expiry minute and of the shard its first two id bytes pick. */
    private byte[] key(OneTimeToken token, byte[] id) {
        return key(keys, shards, token, id);
    }

    /** The hash of a token, for {@code shards} token shards; shared with {@link RedisAtomicExecutor}. */
    static byte[] key(RedisKeys keys, int shards, OneTimeToken token, byte[] id) {
        long bucket = Math.floorDiv(token.expiresAt().toEpochMilli(), BUCKET_MILLIS);
        int shard = (((id[0] & 0xFF) << 8) | (id[1] & 0xFF)) % shards;
        return keys.tokens(bucket, shard);
    }

    /** The 16 raw id bytes ({@link OneTimeToken} guarantees the canonical form, so ids never alias). */
    static byte[] id(OneTimeToken token) {
        return DECODER.decode(token.id());
    }
}
