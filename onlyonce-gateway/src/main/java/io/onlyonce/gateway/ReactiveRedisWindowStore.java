package io.onlyonce.gateway;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.window.WindowHit;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link ReactiveWindowStore} on Redis: the non-blocking calls of {@link RedisWindowStore}
 * ({@link RedisWindowStore#hitAsync(Fingerprint, Duration)}), adapted to Reactor. The same script
 * on the same key, {@code {prefix}w:{fingerprint hex}}, run by the same
 * {@link io.onlyonce.redis.script.ScriptRunner} as the blocking store, so a gateway and a service
 * sharing a prefix count one window, and every failure is answered alike: the first hit sets
 * {@code 1} with {@code PX window}; repeats {@code INCR} without extending it; the time left is the
 * key's {@code PTTL}, on Redis's clock. A keyed hit records its opener in the same script
 * ({@code {count}:{opener}}), so one round trip still decides. {@code EVALSHA} first, {@code EVAL}
 * once after {@code NOSCRIPT}; nothing blocks the calling thread.
 *
 * <p>Every failure arrives as an error signal: {@link StoreUnavailableException} when Redis cannot be
 * reached or does not answer within the store's budget ({@link io.onlyonce.redis.RedisStoreConfig#commandTimeout()}),
 * and also when the window key holds a value the stores did not write (its cause, a
 * {@link io.onlyonce.redis.script.CorruptValueException}, names the key), exactly as
 * {@link RedisWindowStore#hit} throws it.
 */
public final class ReactiveRedisWindowStore implements ReactiveWindowStore {

    private final RedisWindowStore windows;

    /**
     * @param windows the store whose non-blocking calls count the hits; build it on a
     *     {@link io.onlyonce.redis.RedisStoreConnection} (made on first use) or a Lettuce connection
     *     with the budget of one call as {@link io.onlyonce.redis.RedisStoreConfig#commandTimeout()}
     */
    public ReactiveRedisWindowStore(RedisWindowStore windows) {
        this.windows = Objects.requireNonNull(windows, "windows");
    }

    @Override
    public Mono<WindowHit> hit(Fingerprint key, Duration window) {
        return Mono.fromCompletionStage(() -> windows.hitAsync(key, window));
    }

    /**
     * {@inheritDoc}
     *
     * <p>The window's value is then {@code {count}:{opener}}; {@code RedisWindowStore} reads and
     * counts that layout too. An opener that is not 1 to 64 lower-case hex digits is an
     * {@link IllegalArgumentException} signal.
     */
    @Override
    public Mono<KeyedWindowHit> hit(Fingerprint key, Duration window, String opener) {
        return Mono.fromCompletionStage(() -> windows.hitAsync(key, window, opener))
                .map(keyed -> new KeyedWindowHit(keyed.hit(), keyed.retry()));
    }
}
