package io.onlyonce.redis.internal;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.window.WindowHit;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The window script, shared by the blocking {@code RedisWindowStore} and the reactive gateway filter
 * so that both count the same keys the same way. The first hit writes {@code 1} with a relative TTL
 * of the window ({@code PX}); later hits {@code INCR} it, which keeps the TTL, so repeats never
 * extend the window.
 */
public final class WindowScript {

    /** KEYS[1]: the window key; ARGV[1]: the window in ms. Answers {count, PTTL}. */
    public static final LuaScript HIT = new LuaScript("hit", """
            local current = redis.call('GET', KEYS[1])
            if not current then
              redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
              return {1, tonumber(ARGV[1])}
            end
            local left = redis.call('PTTL', KEYS[1])
            if left < 0 or not string.match(current, '^[1-9][0-9]*$') then
              return redis.error_reply('ONLYONCE_CORRUPT not a window counter with a TTL')
            end
            return {redis.call('INCR', KEYS[1]), left}
            """);

    /**
     * KEYS[1]: the window key. Takes back one hit: {@code DECR} (which keeps the TTL), or {@code DEL}
     * of the last one, so the next hit opens a window; nothing when none is open. Answers the count left.
     */
    public static final LuaScript RELEASE = new LuaScript("release", """
            local current = redis.call('GET', KEYS[1])
            if not current then
              return 0
            end
            local count = tonumber(current)
            if count == nil or count <= 1 then
              redis.call('DEL', KEYS[1])
              return 0
            end
            return redis.call('DECR', KEYS[1])
            """);

    private WindowScript() {
    }

    /**
     * The hit a script answer stands for.
     *
     * @throws StoreUnavailableException when the answer is not {count, PTTL}
     */
    public static WindowHit toHit(List<@Nullable Object> answer) {
        if (answer.size() != 2 || !(answer.get(0) instanceof Long count) || !(answer.get(1) instanceof Long left)) {
            throw new StoreUnavailableException("hit", new IllegalStateException("unexpected script answer " + answer));
        }
        // PTTL is 0 in the last millisecond of a key's life: the window is still open.
        return new WindowHit(count, Duration.ofMillis(Math.max(1, left)));
    }
}
