package io.onlyonce.redis;

import static io.onlyonce.redis.internal.ScriptArgs.millis;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.token.OneTimeToken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One call of {@link RedisAtomicExecutor#run}: the record's key, fingerprint and retention, the
 * effect with its own keys and arguments, and optionally a one-time token and a request window that
 * join the same script. Build one with {@link #of}.
 *
 * <pre>{@code
 * AtomicCall call = AtomicCall.of(key, fingerprint, Duration.ofHours(24), reserve)
 *         .keys("{sale:42}:stock", "{sale:42}:reservations")
 *         .args(userId)
 *         .token(token)                                   // optional
 *         .window(windowFingerprint, Duration.ofSeconds(2)) // optional
 *         .recordSlot("sale:42")                           // Redis Cluster only
 *         .build();
 * }</pre>
 *
 * @param key the record's key
 * @param fingerprint the request's fingerprint, kept in the record
 * @param retention how long a completed record is kept, as {@code PX}
 * @param effect the effect
 * @param keys the effect's own keys, its {@code KEYS} (copies)
 * @param args the effect's own arguments, its {@code ARGV} (copies)
 * @param token the one-time token to consume with the effect, or null
 * @param consumeTokenOnDecline whether a decline consumes the token (the default, as the FINAL
 *     failure mode of the two-step path) or leaves it alive for another try
 * @param windowKey the request window's fingerprint, or null for no window
 * @param window the request window, with {@code windowKey}
 * @param recordSlot a Cluster hash tag for the record key, or null for the key the
 *     {@link RedisIdempotencyStore} uses (see {@link Builder#recordSlot(String)})
 */
public record AtomicCall(
        IdempotencyKey key,
        Fingerprint fingerprint,
        Duration retention,
        RedisEffect effect,
        List<byte[]> keys,
        List<byte[]> args,
        @Nullable OneTimeToken token,
        boolean consumeTokenOnDecline,
        @Nullable Fingerprint windowKey,
        @Nullable Duration window,
        @Nullable String recordSlot) {

    /**
     * @throws IllegalArgumentException when a required part is missing, the retention or window is
     *     not positive, only one of window key and window is given, or the record slot is no hash tag
     */
    public AtomicCall {
        if (key == null || fingerprint == null || retention == null || effect == null || keys == null || args == null) {
            throw new IllegalArgumentException("key, fingerprint, retention, effect, keys and args are required");
        }
        millis(retention, "retention");
        if ((windowKey == null) != (window == null)) {
            throw new IllegalArgumentException("a window needs both its fingerprint and its duration");
        }
        if (window != null) {
            millis(window, "window");
        }
        if (recordSlot != null) {
            RedisKeys.requireTag(recordSlot);
        }
        keys = copy(keys, "keys");
        args = copy(args, "args");
    }

    /** A builder of a call with no effect keys or arguments, no token and no window yet. */
    public static Builder of(IdempotencyKey key, Fingerprint fingerprint, Duration retention, RedisEffect effect) {
        return new Builder(key, fingerprint, retention, effect);
    }

    private static List<byte[]> copy(List<byte[]> values, String what) {
        List<byte[]> out = new ArrayList<>(values.size());
        for (byte[] value : values) {
            out.add(Objects.requireNonNull(value, what + " must not hold null").clone());
        }
        return Collections.unmodifiableList(out);
    }

    /** Builds an {@link AtomicCall}; not thread-safe. */
    public static final class Builder {

        private final IdempotencyKey key;
        private final Fingerprint fingerprint;
        private final Duration retention;
        private final RedisEffect effect;
        private final List<byte[]> keys = new ArrayList<>();
        private final List<byte[]> args = new ArrayList<>();
        private @Nullable OneTimeToken token;
        private boolean consumeTokenOnDecline = true;
        private @Nullable Fingerprint windowKey;
        private @Nullable Duration window;
        private @Nullable String recordSlot;

        private Builder(IdempotencyKey key, Fingerprint fingerprint, Duration retention, RedisEffect effect) {
            this.key = key;
            this.fingerprint = fingerprint;
            this.retention = retention;
            this.effect = effect;
        }

        /** Adds keys of the effect, its {@code KEYS} in this order. */
        public Builder keys(byte[]... keys) {
            this.keys.addAll(List.of(keys));
            return this;
        }

        /** Adds keys of the effect, as UTF-8. */
        public Builder keys(String... keys) {
            for (String key : keys) {
                this.keys.add(key.getBytes(StandardCharsets.UTF_8));
            }
            return this;
        }

        /** Adds arguments of the effect, its {@code ARGV} in this order. */
        public Builder args(byte[]... args) {
            this.args.addAll(List.of(args));
            return this;
        }

        /** Adds arguments of the effect, as UTF-8. */
        public Builder args(String... args) {
            for (String arg : args) {
                this.args.add(arg.getBytes(StandardCharsets.UTF_8));
            }
            return this;
        }

        /**
         * A one-time token, saved by {@link RedisTokenStore} with the same settings: the call runs
         * only while it is alive, and consumes it with the effect. Derive the call's key from the
         * token ({@code IdempotentRequests.tokenResultKey}), so that a record means a used token.
         */
        public Builder token(OneTimeToken token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** Whether a decline consumes the token; {@code true} unless set. */
        public Builder consumeTokenOnDecline(boolean consume) {
            this.consumeTokenOnDecline = consume;
            return this;
        }

        /**
         * A request window on the key {@link RedisWindowStore} uses for {@code windowKey}: a hit
         * while it is open answers {@link AtomicOutcome.InWindow}; the first hit opens it (unless the
         * effect fails).
         */
        public Builder window(Fingerprint windowKey, Duration window) {
            this.windowKey = Objects.requireNonNull(windowKey, "windowKey");
            this.window = Objects.requireNonNull(window, "window");
            return this;
        }

        /**
         * Pins the record to the Redis Cluster slot of the hash tag {@code tag}: the record key becomes
         * {@code {prefix}i{tag}:{scope}:{name}}, in the slot of every key with <code>{tag}</code>
         * (such as the effect's <code>{sale:42}:stock</code> for the tag {@code sale:42}). That key is
         * not the one {@link RedisIdempotencyStore} reads: find such a record with
         * {@link RedisAtomicExecutor#find(IdempotencyKey, String)}. Not needed off a Cluster.
         *
         * @throws IllegalArgumentException when {@code tag} is empty or holds a brace or a control character
         */
        public Builder recordSlot(String tag) {
            this.recordSlot = RedisKeys.requireTag(tag);
            return this;
        }

        /**
         * The call.
         *
         * @throws IllegalArgumentException as the record's constructor does
         */
        public AtomicCall build() {
            return new AtomicCall(key, fingerprint, retention, effect, keys, args, token, consumeTokenOnDecline,
                    windowKey, window, recordSlot);
        }
    }
}
