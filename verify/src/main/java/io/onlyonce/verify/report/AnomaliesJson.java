package io.onlyonce.verify.report;

import io.onlyonce.verify.check.Anomaly;
import io.onlyonce.verify.check.CheckResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code anomalies.json}: whether the run held, its seed and command, each check's verdict and counts,
 * and every anomaly with the history operations that show it.
 */
final class AnomaliesJson {

    private static final JsonMapper PRETTY = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private AnomaliesJson() {
    }

    static String of(List<CheckResult> results, RunInfo info) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("valid", results.stream().allMatch(CheckResult::valid));
        root.put("seed", info.seed());
        root.put("command", info.command());
        List<Object> checks = new ArrayList<>();
        List<Object> anomalies = new ArrayList<>();
        for (CheckResult r : results) {
            Map<String, Object> check = new LinkedHashMap<>();
            check.put("check", r.check());
            check.put("valid", r.valid());
            check.put("counts", r.counts());
            check.put("anomalies", r.anomalies().size());
            checks.add(check);
            for (Anomaly a : r.anomalies()) {
                Map<String, Object> anomaly = new LinkedHashMap<>();
                anomaly.put("check", a.check());
                anomaly.put("kind", a.kind());
                anomaly.put("subject", a.subject());
                anomaly.put("message", a.message());
                anomaly.put("ops", a.ops());
                anomalies.add(anomaly);
            }
        }
        root.put("checks", checks);
        root.put("anomalies", anomalies);
        return PRETTY.writeValueAsString(root) + "\n";
    }
}
