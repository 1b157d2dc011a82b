package io.onlyonce.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Helpers for script arguments: numbers travel as ASCII decimal text, durations as milliseconds. */
public final class ScriptArgs {

    private ScriptArgs() {
    }

    /** {@code value} as ASCII decimal digits, as Lua's {@code tonumber} reads them. */
    public static byte[] decimal(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code duration} in whole milliseconds, rounded up, as {@code PX} and {@code PEXPIRE} take it:
     * a relative TTL that Redis counts down on its own clock.
     *
     * @param name what the duration is, for the message of a refused one
     * @throws IllegalArgumentException when {@code duration} is not positive or does not fit in a long of milliseconds
     */
    public static long millis(Duration duration, String name) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + duration);
        }
        try {
            long millis = duration.toMillis();
            return duration.equals(Duration.ofMillis(millis)) ? millis : Math.addExact(millis, 1);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(name + " is too long: " + duration, e);
        }
    }
}
