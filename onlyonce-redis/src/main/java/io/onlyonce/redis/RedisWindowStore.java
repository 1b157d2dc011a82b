package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.internal.WindowScript;
import io.onlyonce.redis.script.ScriptRunner;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@link WindowStore} on Redis: one counter per fingerprint, {@code {prefix}w:{fingerprint hex}}
 * (layout in the {@linkplain io.onlyonce.redis package documentation}). The first hit writes
 * {@code 1} with a relative TTL of the window ({@code PX}); later hits {@code INCR} it, which keeps
 * the TTL, so repeats never extend the window. The window ends when Redis expires the key, on
 * Redis's clock; the hit's {@link WindowHit#remaining()} is the key's {@code PTTL}. One Lua script
 * counts and reads, so of concurrent hits exactly one is first and no two get the same count, in a
 * Cluster as well.
 *
 * <p>{@link #hitAsync(Fingerprint, Duration)} counts without blocking the caller; a hit may also
 * name the window's <em>opener</em> ({@link #hitAsync(Fingerprint, Duration, String)}), which is
 * how the reactive gateway filter lets a client's retry of its own request through. Both run on the
 * same {@link io.onlyonce.redis.script.ScriptRunner} as {@link #hit}, with the same budget and
 * failures.
 *
 * <p>A key that holds anything but a counter with a TTL makes {@link #hit} throw (and the
 * asynchronous forms fail with) {@link StoreUnavailableException} whose cause, a
 * {@link io.onlyonce.redis.script.CorruptValueException}, names the key. The store does not own the
 * connection. Every Lettuce failure surfaces as {@link StoreUnavailableException}. Thread-safe.
 */
public final class RedisWindowStore implements WindowStore {

    private static final Pattern OPENER = Pattern.compile("[0-9a-f]{1,64}");

    private final ScriptRunner redis;
    private final RedisKeys keys;

    private RedisWindowStore(ScriptRunner redis, RedisStoreConfig config) {
        this.redis = redis;
        this.keys = new RedisKeys(config.keyPrefix());
    }

    /**
     * A store on a standalone server, or on the master a Sentinel connection follows (connect with a
     * Sentinel {@code RedisURI}). The connection must use {@code ByteArrayCodec}.
     */
    public static RedisWindowStore standalone(
            StatefulRedisConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /** A store on a Redis Cluster. The connection must use {@code ByteArrayCodec}. */
    public static RedisWindowStore cluster(
            StatefulRedisClusterConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /**
     * A store on either kind of connection: a standalone (or Sentinel) or a Cluster connection,
     * as a framework hands it over. The connection must use {@code ByteArrayCodec}.
     *
     * @throws IllegalArgumentException for any other kind of connection
     */
    public static RedisWindowStore of(StatefulConnection<byte[], byte[]> connection, RedisStoreConfig config) {
        return new RedisWindowStore(LettuceScripts.runner(connection, config.commandTimeout()), config);
    }

    /**
     * A store on a connection made on first use, which it may share with the other stores, so
     * that the application starts while Redis is down.
     */
    public static RedisWindowStore of(RedisStoreConnection connection, RedisStoreConfig config) {
        return new RedisWindowStore(connection.runner(config.commandTimeout()), config);
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

    /**
     * {@link #hit} without blocking: the stage fails with {@link StoreUnavailableException} as
     * {@code hit} throws it, also when the call's budget runs out, and with
     * {@link IllegalArgumentException} when {@code window} is not positive.
     */
    public CompletionStage<WindowHit> hitAsync(Fingerprint key, Duration window) {
        return run(key, window, null).thenApply(WindowScript::toHit);
    }

    /**
     * Counts one hit that names the window's opener, in the same single script as
     * {@link #hit}, without blocking. The window this hit opens holds {@code {count}:{opener}}
     * (a layout {@link #hit} reads and counts as well); a later hit with the same opener within the
     * window is not counted and answers {@link KeyedHit#retry()}; a hit with another opener, or
     * none, is counted as usual. The gateway passes hex digits of a digest of the request's
     * {@code Idempotency-Key}. Fails as {@link #hitAsync(Fingerprint, Duration)} does, and with
     * {@link IllegalArgumentException} for an opener that is not 1 to 64 lower-case hex digits.
     */
    public CompletionStage<KeyedHit> hitAsync(Fingerprint key, Duration window, String opener) {
        if (opener == null || !OPENER.matcher(opener).matches()) {
            return CompletableFuture.failedFuture(
                    new IllegalArgumentException("the opener must be 1 to 64 lower-case hex digits"));
        }
        return run(key, window, opener).thenApply(answer ->
                new KeyedHit(WindowScript.toHit(answer), WindowScript.openedByCaller(answer)));
    }

    private CompletableFuture<List<@Nullable Object>> run(Fingerprint key, Duration window, @Nullable String opener) {
        byte[] windowMillis;
        try {
            windowMillis = decimal(millis(window, "window"));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return opener == null
                ? redis.runForListAsync("hit", WindowScript.HIT, keys.window(key), windowMillis)
                : redis.runForListAsync("hit", WindowScript.HIT, keys.window(key), windowMillis,
                        opener.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public void release(Fingerprint key) {
        redis.runForInteger("release", WindowScript.RELEASE, keys.window(key));
    }

    /**
     * The answer to a hit that names the window's opener.
     *
     * @param hit this hit: its number within the window and the time left; for a {@code retry}, the
     *     count the window had (this hit was not counted)
     * @param retry whether the window was opened by a hit with the same opener
     */
    public record KeyedHit(WindowHit hit, boolean retry) {

        public KeyedHit {
            Objects.requireNonNull(hit, "hit");
        }
    }
}
