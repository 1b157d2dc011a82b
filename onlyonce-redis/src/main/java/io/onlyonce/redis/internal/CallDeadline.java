package io.onlyonce.redis.internal;

import static io.onlyonce.redis.internal.ScriptArgs.decimal;

import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.redis.script.ScriptRunner;
import io.onlyonce.store.StoreBudget;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The moment, on Redis's clock, after which a store's script does nothing: its caller has given up
 * on it by then (a paused or busy server that runs the call late), and was told the store was
 * unavailable. Without it, a claim Redis ran after its caller's 503 would hold the key "in
 * progress" for the whole lease, and a consumed token would refuse the retry of a request that
 * never ran.
 *
 * <p>The deadline is the call's budget from now (the store's, or less when the caller's
 * {@link StoreBudget} has less left), minus a tenth of it (at most 100 ms), so that a call Redis
 * runs as its caller gives up does nothing rather than something nobody is told of. Redis's clock
 * is measured against ours after the first call Redis answered, then every 10 s, with one
 * {@code TIME} script that blocks nobody; until it is known, calls carry no deadline. Thread-safe.
 */
public final class CallDeadline {

    /** Redis's {@code TIME} in ms. */
    private static final LuaScript TIME = new LuaScript("time", """
            local now = redis.call('TIME')
            return {tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)}
            """);
    private static final long REFRESH_MILLIS = 10_000;
    private static final byte[] NONE = new byte[0];

    private final ScriptRunner redis;
    private final Duration budget;
    private final InstantSource clock;
    /** Redis's clock minus ours (ms), when it was measured (ours), and whether a measurement is under way. */
    private volatile long offset;
    private volatile long measuredAt;
    private volatile boolean known;
    private final AtomicBoolean measuring = new AtomicBoolean();

    /**
     * @param redis the runner the store's calls go through (the {@code TIME} script too)
     * @param budget the store's budget per call
     * @param clock our clock
     */
    public CallDeadline(ScriptRunner redis, Duration budget, InstantSource clock) {
        this.redis = redis;
        this.budget = budget;
        this.clock = clock;
    }

    /**
     * The Lua lines that end a script at once, with an error reply the caller reads as an
     * unavailable store, when Redis runs it after the deadline in {@code ARGV[argument]} (ms on
     * Redis's clock; empty for none). They go first, before the script reads or writes anything.
     */
    public static String guard(int argument) {
        return """
                if ARGV[%1$d] ~= '' then
                  local time = redis.call('TIME')
                  if tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) > tonumber(ARGV[%1$d]) then
                    return redis.error_reply('ONLYONCE_LATE ran after its caller gave up on it: nothing was done')
                  end
                end
                """.formatted(argument);
    }

    /** The deadline of a call made now, as a script argument: empty while Redis's clock is not known. */
    public byte[] next() {
        if (!known) {
            return NONE;
        }
        long left = budget.toMillis();
        Duration remaining = StoreBudget.remaining();
        if (remaining != null) {
            left = Math.min(left, remaining.toMillis());
        }
        return decimal(clock.millis() + offset + left - Math.min(100, left / 10));
    }

    /**
     * Told after Redis answered a call on {@code key} (the key routes the {@code TIME} script on a
     * Cluster): measures Redis's clock when it is not known or older than 10 s.
     */
    public void answered(byte[] key) {
        long now = clock.millis();
        if ((known && now - measuredAt <= REFRESH_MILLIS) || !measuring.compareAndSet(false, true)) {
            return;
        }
        try {
            redis.runForListAsync("time", TIME, new byte[][] {key}).whenComplete((answer, failure) -> {
                try {
                    if (failure == null && answer.size() == 1 && answer.get(0) instanceof Long server) {
                        long after = clock.millis();
                        offset = server - (now + after) / 2;
                        measuredAt = after;
                        known = true;
                    }
                } finally {
                    measuring.set(false);
                }
            });
        } catch (RuntimeException e) {
            measuring.set(false);
        }
    }
}
