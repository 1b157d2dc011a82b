package io.onlyonce.redis.internal;

import java.nio.charset.StandardCharsets;

/** Helpers for script arguments: numbers travel as ASCII decimal text, times as epoch millis. */
public final class ScriptArgs {

    private ScriptArgs() {
    }

    /** {@code value} as ASCII decimal digits, as Lua's {@code tonumber} reads them. */
    public static byte[] decimal(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The TTL in milliseconds for a key that must live until {@code deadlineMillis}, measured from
     * the caller's {@code nowMillis}: at least 1, as {@code PX} and {@code PEXPIRE} require a
     * positive TTL. The server's own expiry only reclaims memory; every decision compares against the
     * caller's time, so a key that outlives its deadline is simply treated as absent.
     */
    public static long ttlMillis(long deadlineMillis, long nowMillis) {
        return Math.max(1, deadlineMillis - nowMillis);
    }
}
