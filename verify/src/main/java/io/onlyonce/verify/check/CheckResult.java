package io.onlyonce.verify.check;

import java.util.List;
import java.util.Map;

/**
 * What one checker found.
 *
 * @param check its name
 * @param description what it checks, one sentence
 * @param counts what it looked at, by name (e.g. {@code businessIds: 812}), in a stable order
 * @param anomalies what is wrong; empty when the check holds
 */
public record CheckResult(String check, String description, Map<String, Long> counts, List<Anomaly> anomalies) {

    public CheckResult {
        counts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(counts));
        anomalies = List.copyOf(anomalies);
    }

    public boolean valid() {
        return anomalies.isEmpty();
    }
}
