package io.onlyonce.verify.report;

import io.onlyonce.verify.check.Anomaly;
import io.onlyonce.verify.check.CheckResult;
import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.OpType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes what a person reads after a run: {@code report.html} (timeline, checks, counts, anomalies and
 * the operations they name), {@code anomalies.json} for machines, and a console summary.
 */
public final class Report {

    /** How many anomalies the console summary lists. */
    public static final int SUMMARY_ANOMALIES = 20;

    private Report() {
    }

    /** Writes {@code dir/report.html} and {@code dir/anomalies.json}, creating {@code dir} when missing. */
    public static void write(Path dir, History history, List<CheckResult> results, RunInfo info) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("anomalies.json"), AnomaliesJson.of(results, info), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("report.html"), HtmlReport.of(history, results, info), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A few console lines: client operations by {@code f} and type, faults by kind, each check's verdict
     * with its anomaly count, the overall verdict, then the first {@value #SUMMARY_ANOMALIES} anomalies.
     */
    public static String summary(History history, List<CheckResult> results) {
        Tally tally = Tally.of(history);
        StringBuilder out = new StringBuilder();
        out.append("operations: ").append(tally.clientOps()).append(" client lines\n");
        for (Map.Entry<String, Map<OpType, Long>> e : tally.byF().entrySet()) {
            out.append(String.format(Locale.ROOT, "  %-10s", e.getKey()));
            for (OpType type : OpType.values()) {
                out.append(' ').append(type.wire()).append('=').append(e.getValue().getOrDefault(type, 0L));
            }
            long open = tally.unfinished().getOrDefault(e.getKey(), 0L);
            if (open > 0) {
                out.append(" in-flight=").append(open);
            }
            out.append('\n');
        }
        out.append("faults: ").append(tally.faults().isEmpty() ? "none" : tally.faults().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "))).append('\n');
        int width = results.stream().mapToInt(r -> r.check().length()).max().orElse(0);
        long total = 0;
        for (CheckResult r : results) {
            total += r.anomalies().size();
            out.append(String.format(Locale.ROOT, "  %-" + Math.max(1, width) + "s %-7s %d %s\n", r.check(), r.valid() ? "VALID" : "INVALID",
                    r.anomalies().size(), r.anomalies().size() == 1 ? "anomaly" : "anomalies"));
        }
        out.append(total == 0 ? "VALID" : "INVALID: " + total + (total == 1 ? " anomaly" : " anomalies")).append('\n');
        int listed = 0;
        for (CheckResult r : results) {
            for (Anomaly a : r.anomalies()) {
                if (listed == SUMMARY_ANOMALIES) {
                    out.append("  ... and ").append(total - listed).append(" more (anomalies.json)\n");
                    return out.toString();
                }
                out.append("  ").append(a.check()).append(' ').append(a.kind()).append(' ').append(a.subject()).append(": ")
                        .append(a.message()).append(" ops ").append(a.ops()).append('\n');
                listed++;
            }
        }
        return out.toString();
    }
}
