package io.onlyonce.redis.internal;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import java.nio.charset.StandardCharsets;

/**
 * Builds the keys the stores write (see the {@code io.onlyonce.redis} package documentation for
 * the layout). Every key is the configured prefix, a one-letter kind and a colon.
 */
public final class RedisKeys {

    private final String idempotencyPrefix;
    private final String tokenPrefix;
    private final String windowPrefix;

    public RedisKeys(String keyPrefix) {
        this.idempotencyPrefix = keyPrefix + "i:";
        this.tokenPrefix = keyPrefix + "t:";
        this.windowPrefix = keyPrefix + "w:";
    }

    /**
     * {@code {prefix}i:{scope}:{name}}: in the scope {@code %}, {@code :}, <code>{</code> and
     * <code>}</code> become {@code %25}, {@code %3A}, {@code %7B} and {@code %7D}, so the first colon
     * after {@code i:} is always the boundary; in the name {@code %} and the braces are escaped the
     * same way. No brace of a key therefore forms a Cluster hash tag: route templates such as
     * <code>/orders/{id}</code> in scopes would otherwise send every key to one slot.
     */
    public byte[] idempotency(IdempotencyKey key) {
        String name = idempotencyPrefix + escape(key.scope(), true) + ':' + escape(key.name(), false);
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@code {prefix}i{tag}:{scope}:{name}}: the key of a record pinned to the Cluster slot of the
     * hash tag {@code tag} (unless the prefix holds a hash tag of its own, which comes first), with
     * scope and name escaped as in {@link #idempotency(IdempotencyKey)}. The brace right after
     * {@code i} never follows {@code i} in an untagged key, so the two layouts never meet.
     *
     * @throws IllegalArgumentException when {@code tag} is empty or holds a brace or a control character
     */
    public byte[] idempotency(IdempotencyKey key, String tag) {
        requireTag(tag);
        String name = idempotencyPrefix.substring(0, idempotencyPrefix.length() - 1) + '{' + tag + "}:"
                + escape(key.scope(), true) + ':' + escape(key.name(), false);
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Checks a Cluster hash tag: not empty, without braces or control characters.
     *
     * @throws IllegalArgumentException when it is not one
     */
    public static String requireTag(String tag) {
        if (tag == null || tag.isEmpty()) {
            throw new IllegalArgumentException("a hash tag must not be empty");
        }
        for (int i = 0; i < tag.length(); i++) {
            char c = tag.charAt(i);
            if (c == '{' || c == '}' || Character.isISOControl(c)) {
                throw new IllegalArgumentException("a hash tag must not contain braces or control characters: " + tag);
            }
        }
        return tag;
    }

    /** {@code {prefix}t:{bucket}:{shard}}. */
    public byte[] tokens(long bucket, int shard) {
        return (tokenPrefix + bucket + ':' + shard).getBytes(StandardCharsets.UTF_8);
    }

    /** {@code {prefix}w:{fingerprint as 64 lower-case hex digits}}. */
    public byte[] window(Fingerprint fingerprint) {
        return (windowPrefix + fingerprint.hex()).getBytes(StandardCharsets.UTF_8);
    }

    /** The UTF-8 text of a key, for messages. */
    public static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    private static String escape(String text, boolean escapeColon) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '%' -> out.append("%25");
                case '{' -> out.append("%7B");
                case '}' -> out.append("%7D");
                case ':' -> out.append(escapeColon ? "%3A" : ":");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
