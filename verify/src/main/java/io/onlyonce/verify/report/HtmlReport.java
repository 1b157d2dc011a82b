package io.onlyonce.verify.report;

import static io.onlyonce.verify.report.Html.esc;

import io.onlyonce.verify.check.Anomaly;
import io.onlyonce.verify.check.CheckResult;
import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code report.html}: one self-contained page (inline CSS and SVG, no script, nothing fetched) with the
 * verdict and the command, the timeline, the checks, the counts, the anomalies and the operations they name.
 */
final class HtmlReport {

    /** At most this many operation rows in the last section. */
    static final int MAX_ROWS = 3_000;
    /** At most this many operation rows per anomaly (its own operations are always shown). */
    static final int MAX_STORY_ROWS = 300;
    /** Longest value shown in a row, in characters. */
    static final int MAX_VALUE_CHARS = 4_000;

    private static final String CSS = """
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
            h1{margin:0 0 8px}h2{margin-top:32px;border-bottom:1px solid #ddd}h3{margin:20px 0 6px;font-size:15px}
            .valid{color:#1a7f1a}.invalid{color:#c00}.muted{color:#777;fill:#777}
            table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
            th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
            pre{background:#f6f6f6;padding:8px 10px;overflow-x:auto;white-space:pre-wrap}
            table.ops td{font:12px/1.3 ui-monospace,monospace}table.ops td.v{word-break:break-all}
            tr.hit td{background:#fff0f0}tr:target td{background:#ffe58a}
            dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}dt{color:#555}dd{margin:0}
            .swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}
            svg.timeline{max-width:100%;height:auto;font-family:system-ui,sans-serif}
            """;

    private final History history;
    private final List<CheckResult> results;
    private final RunInfo info;
    private final Tally tally;
    private final List<FaultBand> bands;
    private final List<Anomaly> anomalies;
    private final Stories stories;
    private final StringBuilder html = new StringBuilder(256 * 1024);

    private HtmlReport(History history, List<CheckResult> results, RunInfo info) {
        this.history = history;
        this.results = results;
        this.info = info;
        this.tally = Tally.of(history);
        this.bands = FaultBand.of(history, tally.end());
        this.anomalies = results.stream().flatMap(r -> r.anomalies().stream()).toList();
        this.stories = new Stories(history);
    }

    static String of(History history, List<CheckResult> results, RunInfo info) {
        return new HtmlReport(history, results, info).render();
    }

    private String render() {
        boolean valid = anomalies.isEmpty();
        String verdict = valid ? "VALID" : "INVALID: " + anomalies.size() + (anomalies.size() == 1 ? " anomaly" : " anomalies");
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
                .append(esc("onlyonce verify: " + verdict + ", seed " + info.seed())).append("</title>\n<style>\n")
                .append(CSS).append("</style>\n</head>\n<body>\n");
        header(valid, verdict);
        html.append("<section id=\"timeline\">\n<h2>Timeline</h2>\n")
                .append(Timeline.svg(history, tally.end(), bands, anomalies, stories)).append("</section>\n");
        checks();
        operations();
        anomalySection();
        storySection();
        html.append("</body>\n</html>\n");
        return html.toString();
    }

    private void header(boolean valid, String verdict) {
        html.append("<header>\n<h1 class=\"verdict ").append(valid ? "valid" : "invalid").append("\">").append(esc(verdict))
                .append("</h1>\n<dl>\n");
        item("seed", Long.toString(info.seed()));
        item("started", info.startedAt() == null ? "" : info.startedAt().toString());
        item("duration", Html.duration(info.durationMs()));
        item("workload minutes", String.valueOf(info.minutes()));
        item("faults requested", info.faults().isEmpty() ? "none" : String.join(", ", info.faults()));
        item("protections broken", info.breaks().isEmpty() ? "none" : String.join(", ", info.breaks()));
        item("history", history.ops().size() + " lines, " + tally.clientOps() + " client operations");
        Optional<Op> read = history.finalRead();
        item("final read", read.map(op -> "drained " + op.str("drained") + ", drain " + op.str("drainMs") + " ms")
                .orElse("none"));
        item("checks", results.stream().filter(CheckResult::valid).count() + " of " + results.size() + " hold");
        for (String note : info.notes()) {
            item("note", note);
        }
        html.append("</dl>\n<h2>Reproduce</h2>\n<pre class=\"command\">").append(esc(info.command())).append("</pre>\n</header>\n");
    }

    private void item(String term, String value) {
        html.append("<dt>").append(esc(term)).append("</dt><dd>").append(esc(value)).append("</dd>\n");
    }

    private void checks() {
        html.append("<section id=\"checks\">\n<h2>Checks</h2>\n<table class=\"checks\">\n")
                .append("<tr><th>check</th><th>description</th><th>valid</th><th>counts</th><th>anomalies</th></tr>\n");
        int number = 1;
        for (CheckResult r : results) {
            String counts = r.counts().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(", "));
            html.append("<tr><td>").append(esc(r.check())).append("</td><td>").append(esc(r.description()))
                    .append("</td><td class=\"").append(r.valid() ? "valid\">VALID" : "invalid\">INVALID").append("</td><td>")
                    .append(esc(counts)).append("</td><td class=\"n\">");
            if (r.valid()) {
                html.append('0');
            } else {
                html.append("<a href=\"#anomaly-").append(number).append("\">").append(r.anomalies().size()).append("</a>");
            }
            html.append("</td></tr>\n");
            number += r.anomalies().size();
        }
        html.append("</table>\n</section>\n");
    }

    private void operations() {
        html.append("<section id=\"operations\">\n<h2>Operations</h2>\n");
        if (tally.byF().isEmpty()) {
            html.append("<p class=\"muted\">No client operations.</p>\n");
        } else {
            html.append("<table class=\"counts\">\n<tr><th>f</th><th>invoke</th><th>ok</th><th>fail</th><th>info</th>")
                    .append("<th>in flight at the end</th></tr>\n");
            for (String f : tally.byF().keySet()) {
                html.append("<tr><td>").append(esc(f)).append("</td>");
                for (OpType type : OpType.values()) {
                    html.append("<td class=\"n\">").append(tally.count(f, type)).append("</td>");
                }
                html.append("<td class=\"n\">").append(tally.unfinished().getOrDefault(f, 0L)).append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        html.append("<h3>Faults struck</h3>\n");
        if (tally.faults().isEmpty()) {
            html.append("<p class=\"muted\">No faults.</p>\n");
        } else {
            Map<String, Integer> rows = new LinkedHashMap<>();
            for (FaultBand band : bands) {
                rows.putIfAbsent(band.kind(), rows.size());
            }
            html.append("<table class=\"faults\">\n<tr><th>kind</th><th>starts</th><th>targets</th></tr>\n");
            for (Map.Entry<String, Long> e : tally.faults().entrySet()) {
                Integer row = rows.get(e.getKey());
                html.append("<tr><td>");
                if (row != null) {
                    html.append("<span class=\"swatch\" style=\"background:").append(Timeline.color(row)).append("\"></span>");
                }
                html.append(esc(e.getKey())).append("</td><td class=\"n\">").append(e.getValue()).append("</td><td>")
                        .append(esc(String.join(", ", tally.targets().getOrDefault(e.getKey(), Set.of())))).append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        html.append("</section>\n");
    }

    private void anomalySection() {
        html.append("<section id=\"anomalies\">\n<h2>Anomalies</h2>\n");
        if (anomalies.isEmpty()) {
            html.append("<p class=\"valid\">No anomalies.</p>\n</section>\n");
            return;
        }
        html.append("<table class=\"anomalies\">\n<tr><th>#</th><th>check</th><th>kind</th><th>subject</th><th>message</th>")
                .append("<th>operations</th></tr>\n");
        for (int i = 0; i < anomalies.size(); i++) {
            Anomaly a = anomalies.get(i);
            html.append("<tr class=\"anomaly\" id=\"anomaly-").append(i + 1).append("\"><td class=\"n\"><a href=\"#story-")
                    .append(i + 1).append("\">").append(i + 1).append("</a></td><td>").append(esc(a.check())).append("</td><td>")
                    .append(esc(a.kind())).append("</td><td>").append(esc(a.subject())).append("</td><td>")
                    .append(esc(a.message())).append("</td><td>");
            if (a.ops().isEmpty()) {
                html.append("<span class=\"muted\">final read only</span>");
            }
            String sep = "";
            for (Long index : a.ops()) {
                html.append(sep).append("<a href=\"#op-").append(index).append("\">").append(index).append("</a>");
                sep = " ";
            }
            html.append("</td></tr>\n");
        }
        html.append("</table>\n</section>\n");
    }

    private void storySection() {
        if (anomalies.isEmpty()) {
            return;
        }
        html.append("<section id=\"stories\">\n<h2>The operations the anomalies name</h2>\n")
                .append("<p class=\"muted\">For each anomaly: its operations (highlighted) and every other operation of the same ")
                .append("key, token, tradeNo or orderNo, with the final read's rows about them. At most ").append(MAX_ROWS)
                .append(" rows in all; history.jsonl has every operation.</p>\n");
        Set<Long> shown = new HashSet<>();
        int rows = 0;
        for (int i = 0; i < anomalies.size(); i++) {
            if (rows >= MAX_ROWS) {
                html.append("<p class=\"note\">Cut at ").append(rows).append(" rows: the operations of anomalies ").append(i + 1)
                        .append(" to ").append(anomalies.size()).append(" are not shown here (see history.jsonl).</p>\n");
                break;
            }
            Stories.Story story = stories.of(anomalies.get(i), Math.min(MAX_STORY_ROWS, MAX_ROWS - rows));
            rows += story.ops().size();
            story(i + 1, story, shown);
        }
        html.append("</section>\n");
    }

    private void story(int number, Stories.Story story, Set<Long> shown) {
        Anomaly a = story.anomaly();
        html.append("<h3 id=\"story-").append(number).append("\"><a href=\"#anomaly-").append(number).append("\">#")
                .append(number).append("</a> ").append(esc(a.check())).append(' ').append(esc(a.kind())).append(' ')
                .append(esc(a.subject())).append("</h3>\n");
        if (story.ops().size() < story.total()) {
            html.append("<p class=\"note\">").append(story.ops().size()).append(" of ").append(story.total())
                    .append(" operations shown.</p>\n");
        }
        if (story.ops().isEmpty()) {
            html.append("<p class=\"muted\">No operation in the history names it.</p>\n");
            return;
        }
        html.append("<table class=\"ops\">\n<tr><th>index</th><th>time (s)</th><th>process</th><th>type</th><th>f</th>")
                .append("<th>value</th></tr>\n");
        for (Op op : story.ops()) {
            boolean first = shown.add(op.index());
            html.append("<tr");
            if (first) {
                html.append(" id=\"op-").append(op.index()).append('"');
            }
            if (story.own().contains(op.index())) {
                html.append(" class=\"hit\"");
            }
            html.append("><td class=\"n\">");
            if (first) {
                html.append(op.index());
            } else {
                html.append("<a href=\"#op-").append(op.index()).append("\">").append(op.index()).append("</a>");
            }
            html.append("</td><td class=\"n\">").append(Html.seconds(op.time())).append("</td><td>").append(esc(op.process()))
                    .append("</td><td>").append(esc(op.type().wire())).append("</td><td>").append(esc(op.f()))
                    .append("</td><td class=\"v\">").append(esc(Html.json(story.shownValue(op), MAX_VALUE_CHARS)))
                    .append("</td></tr>\n");
        }
        html.append("</table>\n");
    }
}
