package io.onlyonce.verify.nemesis;

import java.util.Arrays;
import java.util.Locale;

/** The faults the nemesis injects (verify/README.md, "Set-up and nemesis"). */
public enum FaultKind {
    KILL,
    KILL_AFTER_COMMIT,
    PAUSE,
    REDIS_RESTART,
    REDIS_PAUSE,
    POSTGRES_RESTART,
    RABBIT_RESTART,
    RELAY_REPUBLISH,
    REDIS_PARTITION,
    CLOCK_SKEW;

    /** The name on the command line and in the history: {@code kill-after-commit}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static FaultKind ofName(String name) {
        return Arrays.stream(values()).filter(k -> k.wire().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no fault kind " + name + "; known: "
                        + String.join(",", Arrays.stream(values()).map(FaultKind::wire).toList())));
    }
}
