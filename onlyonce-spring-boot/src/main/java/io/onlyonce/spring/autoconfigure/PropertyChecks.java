package io.onlyonce.spring.autoconfigure;

import io.onlyonce.spring.OnlyOnceConfigurationException;
import java.time.Duration;
import java.util.List;

/**
 * Checks of {@code onlyonce.*} values that the settings built from them would refuse with a bare
 * {@link IllegalArgumentException}: each refusal names the property and the fix, and start-up
 * fails with Spring Boot's "APPLICATION FAILED TO START" report.
 */
public final class PropertyChecks {

    private PropertyChecks() {
    }

    /** {@code duration}, when above zero. */
    public static Duration positive(Duration duration, String property) {
        if (duration.isNegative() || duration.isZero()) {
            throw new OnlyOnceConfigurationException(property + " must be positive, was " + duration + ".",
                    "Set " + property + " to a positive duration such as 10s.");
        }
        return duration;
    }

    /** {@code duration}, when at least one millisecond (what a store keeps a key for). */
    public static Duration atLeastOneMillisecond(Duration duration, String property) {
        if (duration.compareTo(Duration.ofMillis(1)) < 0) {
            throw new OnlyOnceConfigurationException(property + " must be at least one millisecond, was " + duration + ".",
                    "Set " + property + " to a positive duration of whole milliseconds such as 30s.");
        }
        return duration;
    }

    /** {@code names}, when none is blank (a list such as {@code " ,X"} has an empty first name). */
    public static List<String> headerNames(List<String> names, String property) {
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (name == null || name.isBlank()) {
                throw new OnlyOnceConfigurationException(property + " has an empty header name at position " + (i + 1)
                        + " of " + names + ".",
                        "Set " + property + " to header names separated by commas, without an empty entry,"
                                + " such as X-Trace-Id,X-Debug.");
            }
        }
        return names;
    }
}
