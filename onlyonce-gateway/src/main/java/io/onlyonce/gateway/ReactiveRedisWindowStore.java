package io.onlyonce.gateway;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;
import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.reactive.RedisClusterReactiveCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.redis.internal.WindowScript;
import io.onlyonce.window.WindowHit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * {@link ReactiveWindowStore} on Redis through Lettuce's reactive API: the same Lua script
 * ({@code WindowScript.HIT}) and the same key, {@code {prefix}w:{fingerprint hex}}, as the blocking
 * {@code io.onlyonce.redis.RedisWindowStore}, so a gateway and a service sharing a prefix count one
 * window. The first hit sets {@code 1} with {@code PX window}; repeats {@code INCR} without extending
 * it; the time left is the key's {@code PTTL}, on Redis's clock. A keyed hit records its opener in the
 * same script ({@code {count}:{opener}}), so one round trip still decides. {@code EVALSHA} first, {@code EVAL}
 * once after {@code NOSCRIPT}. Every failure arrives as {@link StoreUnavailableException}.
 */
public final class ReactiveRedisWindowStore implements ReactiveWindowStore {

    private static final Pattern HEX = Pattern.compile("[0-9a-f]{1,64}");

    private final Supplier<Mono<RedisClusterReactiveCommands<byte[], byte[]>>> commands;
    private final RedisKeys keys;

    /**
     * @param commands the reactive commands of a {@code ByteArrayCodec} connection (standalone,
     *     Sentinel or Cluster), supplied per call so that a connection can be made lazily
     * @param config the key prefix
     */
    public ReactiveRedisWindowStore(Supplier<Mono<RedisClusterReactiveCommands<byte[], byte[]>>> commands,
            RedisStoreConfig config) {
        this.commands = commands;
        this.keys = new RedisKeys(config.keyPrefix());
    }

    @Override
    public Mono<WindowHit> hit(Fingerprint key, Duration window) {
        return run(key, window, null).map(WindowScript::toHit);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The window's value is then {@code {count}:{opener}}; {@code RedisWindowStore} reads and
     * counts that layout too.
     */
    @Override
    public Mono<KeyedWindowHit> hit(Fingerprint key, Duration window, String opener) {
        if (!HEX.matcher(opener).matches()) {
            throw new IllegalArgumentException("the opener must be 1 to 64 lower-case hex digits");
        }
        return run(key, window, opener).map(answer -> new KeyedWindowHit(WindowScript.toHit(answer),
                WindowScript.openedByCaller(answer)));
    }

    private Mono<List<@Nullable Object>> run(Fingerprint key, Duration window, @Nullable String opener) {
        byte[][] keyArgs = {keys.window(key)};
        byte[][] args = opener == null ? new byte[][] {decimal(millis(window, "window"))}
                : new byte[][] {decimal(millis(window, "window")), opener.getBytes(StandardCharsets.US_ASCII)};
        return commands.get()
                .flatMap(redis -> redis.<Object>evalsha(WindowScript.HIT.sha(), ScriptOutputType.MULTI, keyArgs, args)
                        .onErrorResume(RedisNoScriptException.class,
                                e -> redis.<Object>eval(WindowScript.HIT.source(), ScriptOutputType.MULTI, keyArgs, args))
                        .collectList())
                .map(ReactiveRedisWindowStore::flatten)
                .onErrorMap(e -> !(e instanceof StoreUnavailableException), e -> new StoreUnavailableException("hit", e));
    }

    /** Lettuce's reactive {@code MULTI} output arrives either element by element or as one list. */
    private static List<@Nullable Object> flatten(List<Object> answer) {
        if (answer.size() == 1 && answer.get(0) instanceof List<?> nested) {
            return new ArrayList<>(nested);
        }
        return new ArrayList<>(answer);
    }
}
