package io.onlyonce.redis;

import io.onlyonce.redis.internal.AtomicScript;
import io.onlyonce.redis.script.LuaScript;

/**
 * An idempotent effect that is itself a Redis Lua script, run by {@link RedisAtomicExecutor} in the
 * same script call as its idempotency record. Made once (the fused script and its SHA-1 are
 * computed here) and reused for every call.
 *
 * <p>The source is written as a standalone script: {@code KEYS} and {@code ARGV} are the effect's
 * own (those of {@link AtomicCall.Builder#keys(byte[]...)} and {@link AtomicCall.Builder#args(byte[]...)}),
 * and it answers one of two tables:
 * <ul>
 *   <li>{@code {'complete', status, body, [headerName, headerValue]...}}: the effect happened; the
 *     record is written completed with that response (status 100 to 599, body a string, headers as
 *     {@link io.onlyonce.StoredResponse} takes them), and the call answers
 *     {@link AtomicOutcome.Completed};</li>
 *   <li>{@code {'decline', values...}}: the effect did not happen (sold out, say); the library writes
 *     no record, and the call answers {@link AtomicOutcome.Declined} with the values.</li>
 * </ul>
 * The effect must decide before it writes: Redis does not roll back what a script wrote before it
 * failed. A Lua error, a command Redis refuses it (a wrong type, say) or an answer of another shape
 * makes the call throw {@link IllegalStateException} naming the effect; a refusal that is the
 * server's state ({@code OOM}, {@code READONLY}, {@code NOREPLICAS}, {@code MASTERDOWN}) throws
 * {@link io.onlyonce.StoreUnavailableException} instead. Either way the library writes nothing then
 * (no record, no token consumed, no window opened), but whatever the effect wrote before stays. A
 * source that does not compile fails every call with {@link IllegalStateException}.
 *
 * <pre>{@code
 * RedisEffect reserve = RedisEffect.of("reserve", """
 *         local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
 *         if stock <= 0 then
 *           return {'decline', 'sold out'}
 *         end
 *         redis.call('DECR', KEYS[1])
 *         local id = redis.call('XADD', KEYS[2], '*', 'user', ARGV[1])
 *         return {'complete', 202, '{"reservation":"' .. id .. '"}', 'Content-Type', 'application/json'}
 *         """);
 * }</pre>
 *
 * <p>The source must not start with a shebang line ({@code #!lua flags=...}): the fused script is
 * one script of the library's. Only the keys the effect is given may be touched, as for any Redis
 * script (and in a Cluster they share the record's slot). Immutable and thread-safe.
 */
public final class RedisEffect {

    private final String name;
    private final String source;
    private final LuaScript script;

    private RedisEffect(String name, String source) {
        this.name = name;
        this.source = source;
        this.script = AtomicScript.fuse("atomic " + name, source);
    }

    /**
     * An effect.
     *
     * @param name a short name for messages, for example {@code "reserve"}
     * @param source the effect's Lua source, a standalone script of its own {@code KEYS} and {@code ARGV}
     * @throws IllegalArgumentException when the name is blank or holds control characters, or the
     *     source is blank or starts with a shebang line
     */
    public static RedisEffect of(String name, String source) {
        if (name == null || name.isBlank() || name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("an effect's name must not be blank nor hold control characters");
        }
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException("effect " + name + ": the source must not be blank");
        }
        if (source.stripLeading().startsWith("#!")) {
            throw new IllegalArgumentException("effect " + name + ": the source must not start with a shebang line");
        }
        return new RedisEffect(name, source);
    }

    /** The name given to {@link #of}. */
    public String name() {
        return name;
    }

    /** The effect's own source, as given to {@link #of}. */
    public String source() {
        return source;
    }

    /** The SHA-1 of the fused script, as {@code EVALSHA} names it. */
    public String sha() {
        return script.sha();
    }

    LuaScript script() {
        return script;
    }

    @Override
    public String toString() {
        return "RedisEffect[" + name + ", " + script.sha() + "]";
    }
}
