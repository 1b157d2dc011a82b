package io.onlyonce.verify.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one checker gathers while it runs: its counts, in the order first touched, and its anomalies.
 */
final class Findings {

    private final String check;
    private final String description;
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final List<Anomaly> anomalies = new ArrayList<>();

    Findings(String check, String description) {
        this.check = check;
        this.description = description;
    }

    Findings count(String name, long n) {
        counts.put(name, n);
        return this;
    }

    Findings add(String name, long n) {
        counts.merge(name, n, Long::sum);
        return this;
    }

    Findings inc(String name) {
        return add(name, 1);
    }

    void anomaly(String kind, String subject, String message, List<Long> ops) {
        anomalies.add(new Anomaly(check, kind, subject, message, ops.stream().distinct().sorted().toList()));
    }

    CheckResult result() {
        return new CheckResult(check, description, counts, anomalies);
    }

    /** The result of a checker that needs the final read when the history has none. */
    CheckResult noFinalRead() {
        anomaly("no-final-read", "final read", "the history has no final read, so " + check + " cannot be decided", List.of());
        return result();
    }

    /** Records that the history has no set-up, which the parts of a check that need it skip. */
    void noSetup() {
        anomaly("no-setup", "setup", "the history has no set-up record, so the parts of " + check + " that need it were skipped", List.of());
    }
}
