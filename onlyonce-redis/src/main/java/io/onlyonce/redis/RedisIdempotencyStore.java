package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.internal.CallDeadline;
import io.onlyonce.redis.internal.IdempotencyValue;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.redis.script.ScriptRunner;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * {@link IdempotencyStore} on Redis: one binary string per record under
 * {@code {prefix}i:{scope}:{name}} (layout in the {@linkplain io.onlyonce.redis package
 * documentation}); claim, complete, release and find are each one Lua script on that single key, so
 * they are atomic on a standalone server, through Sentinel and in a Cluster.
 *
 * <p>Time is Redis's: the key's TTL is the lease while the record is in progress, then the
 * retention once it is completed, set as a relative {@code PX} and counted down by the server. A
 * record whose TTL ran out is gone (Redis never returns an expired key), so a claim takes it over
 * and a late holder's complete or release finds nothing and is refused. {@link IdempotencyRecord#expiresIn()}
 * is the key's {@code PTTL}, read in the same script as the value. No application clock takes part,
 * so instances whose clocks differ agree on every lease and retention.
 *
 * <p>A key that holds anything these stores did not write (another Redis type, another layout, a
 * value without TTL) makes every operation on it throw {@link StoreUnavailableException} whose cause
 * says the value is corrupt; nothing is overwritten.
 *
 * <p>Run Redis with {@code maxmemory-policy noeviction}: an evicted record lets its request run
 * again ({@link RedisEvictionPolicy#check} tells). The store does not own the connection: close it
 * yourself after the store's last use. Every Lettuce failure surfaces as
 * {@link StoreUnavailableException}. Thread-safe.
 *
 * <p>The {@link AsyncIdempotencyStore} methods run the same scripts on Lettuce's asynchronous
 * commands and never block their caller, not even while the connection is first made; each has the
 * same budget ({@link RedisStoreConfig#commandTimeout()}) as a blocking call.
 */
public final class RedisIdempotencyStore implements IdempotencyStore, AsyncIdempotencyStore {

    /** Answers {@code {value, PTTL}} of a live record, or an empty array. */
    private static final String READ = """
            local current = redis.call('GET', KEYS[1])
            if current then
              return {current, redis.call('PTTL', KEYS[1])}
            end
            """;

    /**
     * The holder test shared by complete and release (ARGV[1] = owner): answers 0 unless the record
     * exists, is in progress and is held by ARGV[1]; answers an error for a value of another shape.
     */
    private static final String HOLDER_CHECK = """
            local current = redis.call('GET', KEYS[1])
            if not current then
              return 0
            end
            local status = string.sub(current, 1, 1)
            if not (((status == 'R' or status == 'N') and #current == 55) or (status == 'D' and #current > 55)) then
              return redis.error_reply('ONLYONCE_CORRUPT not an idempotency record')
            end
            if status ~= 'R' or string.sub(current, 2, 23) ~= ARGV[1] then
              return 0
            end
            """;

    /**
     * ARGV: value of the new record, lease in ms, deadline (see {@link CallDeadline}). Answers the
     * live record, or an empty array after writing the new one.
     */
    private static final LuaScript CLAIM = new LuaScript("claim", CallDeadline.guard(3) + READ + """
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return {}
            """);

    /** ARGV: owner, completed status byte, encoded response (or empty), retention in ms. Answers 1 or 0. */
    private static final LuaScript COMPLETE = new LuaScript("complete", HOLDER_CHECK + """
            redis.call('SET', KEYS[1], ARGV[2] .. string.sub(current, 2, 55) .. ARGV[3], 'PX', ARGV[4])
            return 1
            """);

    /** ARGV: owner. Answers 1 or 0. */
    private static final LuaScript RELEASE = new LuaScript("release", HOLDER_CHECK + """
            redis.call('DEL', KEYS[1])
            return 1
            """);

    /** Answers the live record, or an empty array; shared with {@link RedisAtomicExecutor}. */
    static final LuaScript FIND = new LuaScript("find", READ + """
            return {}
            """);

    private final ScriptRunner redis;
    private final RedisKeys keys;
    private final CallDeadline deadline;

    private RedisIdempotencyStore(ScriptRunner redis, RedisStoreConfig config) {
        this.redis = redis;
        this.keys = new RedisKeys(config.keyPrefix());
        this.deadline = new CallDeadline(redis, config.commandTimeout(), InstantSource.system());
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisIdempotencyStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisIdempotencyStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisIdempotencyStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /**
     * A store on a connection made on first use, which it may share with the other stores, so
     * that the application starts while Redis is down.
     */
    public static RedisIdempotencyStore of(RedisStoreConnection connection, RedisStoreConfig config) {
        return new RedisIdempotencyStore(connection.runner(config.commandTimeout()), config);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when {@code lease} is not positive
     */
    @Override
    public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        long leaseMillis = millis(lease, "lease");
        OwnerToken owner = OwnerToken.random();
        byte[] redisKey = keys.idempotency(key);
        List<@Nullable Object> existing = redis.runForList("claim", CLAIM, redisKey,
                IdempotencyValue.inProgress(owner, fingerprint), decimal(leaseMillis), deadline.next());
        deadline.answered(redisKey);
        return existing.isEmpty()
                ? new ClaimResult.Claimed(owner)
                : new ClaimResult.Existing(record("claim", key, redisKey, existing));
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when {@code retention} is not positive
     */
    @Override
    public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
        long retentionMillis = millis(retention, "retention");
        return redis.runForInteger("complete", COMPLETE, keys.idempotency(key),
                IdempotencyValue.owner(owner),
                IdempotencyValue.completedStatus(response),
                IdempotencyValue.completedTail(response),
                decimal(retentionMillis)) == 1;
    }

    @Override
    public boolean release(IdempotencyKey key, OwnerToken owner) {
        return redis.runForInteger("release", RELEASE, keys.idempotency(key), IdempotencyValue.owner(owner)) == 1;
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        byte[] redisKey = keys.idempotency(key);
        List<@Nullable Object> found = redis.runForList("find", FIND, redisKey);
        return found.isEmpty() ? Optional.empty() : Optional.of(record("find", key, redisKey, found));
    }

    @Override
    public CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
        long leaseMillis;
        try {
            leaseMillis = millis(lease, "lease");
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        OwnerToken owner = OwnerToken.random();
        byte[] redisKey = keys.idempotency(key);
        return redis.runForListAsync("claim", CLAIM, redisKey, IdempotencyValue.inProgress(owner, fingerprint),
                        decimal(leaseMillis), deadline.next())
                .thenApply(existing -> {
                    deadline.answered(redisKey);
                    return existing.isEmpty()
                            ? new ClaimResult.Claimed(owner)
                            : new ClaimResult.Existing(record("claim", key, redisKey, existing));
                });
    }

    @Override
    public CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response,
            Duration retention) {
        long retentionMillis;
        try {
            retentionMillis = millis(retention, "retention");
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return redis.runForIntegerAsync("complete", COMPLETE, keys.idempotency(key),
                IdempotencyValue.owner(owner),
                IdempotencyValue.completedStatus(response),
                IdempotencyValue.completedTail(response),
                decimal(retentionMillis)).thenApply(done -> done == 1);
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner) {
        return redis.runForIntegerAsync("release", RELEASE, keys.idempotency(key), IdempotencyValue.owner(owner))
                .thenApply(done -> done == 1);
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> findAsync(IdempotencyKey key) {
        byte[] redisKey = keys.idempotency(key);
        return redis.runForListAsync("find", FIND, redisKey)
                .thenApply(found -> found.isEmpty() ? Optional.empty() : Optional.of(record("find", key, redisKey, found)));
    }

    /** The record in a script's {@code {value, PTTL}} answer. */
    static IdempotencyRecord record(String operation, IdempotencyKey key, byte[] redisKey, List<@Nullable Object> answer) {
        try {
            if (answer.size() != 2 || !(answer.get(0) instanceof byte[] value) || !(answer.get(1) instanceof Long pttl)) {
                throw new StoreUnavailableException(operation, new IllegalStateException("unexpected script answer " + answer));
            }
            return IdempotencyValue.decode(key, RedisKeys.text(redisKey), value, pttl);
        } catch (CorruptValueException e) {
            throw new StoreUnavailableException(operation, e);
        }
    }
}
