package io.onlyonce.redis.internal;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.window.WindowHit;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The window script of {@code RedisWindowStore}: its blocking {@code hit}, and {@code hitAsync},
 * which the reactive gateway filter calls, so that both count the same keys the same way. The first hit writes {@code 1} with a relative TTL
 * of the window ({@code PX}); later hits {@code INCR} it, which keeps the TTL, so repeats never
 * extend the window.
 *
 * <p>A hit may name the window's <em>opener</em> (the gateway passes a digest of the request's
 * {@code Idempotency-Key}): the window then holds {@code {count}:{opener}}, a later hit that names
 * the same opener is not counted and is answered as the opener's own retry, and any other hit is
 * counted as usual (rewritten with the TTL it had, since {@code INCR} needs a bare number). Hits
 * without an opener behave exactly as before on both layouts.
 */
public final class WindowScript {

    /**
     * KEYS[1]: the window key; ARGV[1]: the window in ms; ARGV[2], optional: the opener, lower-case
     * hex digits. Answers {count, PTTL}, or {count, PTTL, 1} when the window was opened by ARGV[2]
     * (nothing counted).
     */
    public static final LuaScript HIT = new LuaScript("hit", """
            local current = redis.call('GET', KEYS[1])
            local opener = ARGV[2] or ''
            if not current then
              if opener == '' then
                redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
              else
                redis.call('SET', KEYS[1], '1:' .. opener, 'PX', ARGV[1])
              end
              return {1, tonumber(ARGV[1])}
            end
            local left = redis.call('PTTL', KEYS[1])
            local count, owner = string.match(current, '^([1-9][0-9]*)(.*)$')
            if left < 0 or not count or (owner ~= '' and not string.match(owner, '^:[0-9a-f]+$')) then
              return redis.error_reply('ONLYONCE_CORRUPT not a window counter with a TTL')
            end
            if owner == '' then
              return {redis.call('INCR', KEYS[1]), left}
            end
            if opener ~= '' and owner == ':' .. opener then
              return {tonumber(count), left, 1}
            end
            local counted = tonumber(count) + 1
            redis.call('SET', KEYS[1], string.format('%d', counted) .. owner, 'PX', math.max(left, 1))
            return {counted, left}
            """);

    /**
     * KEYS[1]: the window key. Takes back one hit: {@code DECR} (which keeps the TTL; on a window
     * with an opener, the count rewritten with the TTL it had), or {@code DEL} of the last one, so the
     * next hit opens a window; nothing when none is open. Answers the count left.
     */
    public static final LuaScript RELEASE = new LuaScript("release", """
            local current = redis.call('GET', KEYS[1])
            if not current then
              return 0
            end
            local count, owner = string.match(current, '^([0-9]+)(.*)$')
            count = tonumber(count)
            if count == nil or count <= 1 then
              redis.call('DEL', KEYS[1])
              return 0
            end
            if owner == '' then
              return redis.call('DECR', KEYS[1])
            end
            local left = redis.call('PTTL', KEYS[1])
            redis.call('SET', KEYS[1], string.format('%d', count - 1) .. owner, 'PX', math.max(left, 1))
            return count - 1
            """);

    private WindowScript() {
    }

    /**
     * The hit a script answer stands for.
     *
     * @throws StoreUnavailableException when the answer is not {count, PTTL} or {count, PTTL, 1}
     */
    public static WindowHit toHit(List<@Nullable Object> answer) {
        if (answer.size() < 2 || answer.size() > 3 || !(answer.get(0) instanceof Long count)
                || !(answer.get(1) instanceof Long left) || (answer.size() == 3 && !Long.valueOf(1).equals(answer.get(2)))) {
            throw new StoreUnavailableException("hit", new IllegalStateException("unexpected script answer " + answer));
        }
        // PTTL is 0 in the last millisecond of a key's life: the window is still open.
        return new WindowHit(count, Duration.ofMillis(Math.max(1, left)));
    }

    /** Whether a {@link #HIT} answer says the window was opened by the hit's own opener (nothing counted). */
    public static boolean openedByCaller(List<@Nullable Object> answer) {
        return answer.size() == 3;
    }
}
