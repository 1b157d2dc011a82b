package io.onlyonce.verify.report;

import static io.onlyonce.verify.report.Html.esc;

import io.onlyonce.verify.check.Anomaly;
import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The run as one inline SVG over seconds since the start: client throughput (ok completions per second)
 * and errors (fail and info completions per second) as lines, faults as translucent bands in one labelled
 * row per kind, and anomalies as marks linked to their first operation.
 */
final class Timeline {

    static final String[] COLORS = {"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
        "#7f7f7f", "#2ca02c", "#d62728"};
    private static final int WIDTH = 1000;
    private static final int LEFT = 130;
    private static final int RIGHT = 20;
    private static final int PLOT = WIDTH - LEFT - RIGHT;
    private static final int CHART_TOP = 30;
    private static final int CHART_HEIGHT = 150;
    private static final int MARKS_TOP = CHART_TOP + CHART_HEIGHT + 8;
    private static final int BANDS_TOP = MARKS_TOP + 24;
    private static final int ROW = 20;
    private static final long SECOND = 1_000_000_000L;

    private final double endNs;
    private final StringBuilder svg = new StringBuilder(64 * 1024);

    private Timeline(long end) {
        this.endNs = Math.max(end, SECOND);
    }

    /** The SVG element of a run. */
    static String svg(History history, long end, List<FaultBand> bands, List<Anomaly> anomalies, Stories stories) {
        Timeline t = new Timeline(end);
        return t.render(history, bands, anomalies, stories);
    }

    private String render(History history, List<FaultBand> bands, List<Anomaly> anomalies, Stories stories) {
        Map<String, Integer> rows = new LinkedHashMap<>();
        for (FaultBand band : bands) {
            rows.putIfAbsent(band.kind(), rows.size());
        }
        int axis = BANDS_TOP + rows.size() * ROW + 4;
        int height = axis + 30;
        svg.append("<svg class=\"timeline\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(height).append("\" width=\"").append(WIDTH).append("\" height=\"").append(height).append("\">\n");
        legend();
        long[] ok = new long[buckets()];
        long[] errors = new long[buckets()];
        boolean clients = count(history, ok, errors);
        double max = nice(Math.max(2, Math.max(max(ok), max(errors))));
        chartFrame(max);
        for (FaultBand band : bands) {
            String color = color(rows.get(band.kind()));
            svg.append("<rect class=\"shade\" x=\"").append(fmt(x(band.start()))).append("\" y=\"").append(CHART_TOP)
                    .append("\" width=\"").append(fmt(Math.max(1, x(band.end()) - x(band.start())))).append("\" height=\"")
                    .append(CHART_HEIGHT).append("\" fill=\"").append(color).append("\" fill-opacity=\"0.08\"/>\n");
        }
        if (clients) {
            line(ok, max, "#2a9d2a", "throughput");
            line(errors, max, "#d62728", "errors");
        } else {
            svg.append("<text x=\"").append(LEFT + PLOT / 2).append("\" y=\"").append(CHART_TOP + CHART_HEIGHT / 2)
                    .append("\" text-anchor=\"middle\" class=\"muted\">no client operations</text>\n");
        }
        marks(anomalies, stories);
        bands(bands, rows);
        xAxis(axis);
        svg.append("</svg>\n");
        return svg.toString();
    }

    private int buckets() {
        return (int) Math.ceil(endNs / SECOND) + 1;
    }

    private static boolean count(History history, long[] ok, long[] errors) {
        boolean any = false;
        for (Op op : history.ops()) {
            if (!op.isClient() || op.isInvoke()) {
                continue;
            }
            any = true;
            int s = (int) Math.min(ok.length - 1, Math.max(0, op.time() / SECOND));
            if (op.type() == OpType.OK) {
                ok[s]++;
            } else {
                errors[s]++;
            }
        }
        return any || history.ops().stream().anyMatch(Op::isClient);
    }

    private void legend() {
        svg.append("<g class=\"legend\" font-size=\"12\">")
                .append("<line x1=\"").append(LEFT).append("\" y1=\"12\" x2=\"").append(LEFT + 20)
                .append("\" y2=\"12\" stroke=\"#2a9d2a\" stroke-width=\"2\"/>")
                .append("<text x=\"").append(LEFT + 25).append("\" y=\"16\">ok / s</text>")
                .append("<line x1=\"").append(LEFT + 90).append("\" y1=\"12\" x2=\"").append(LEFT + 110)
                .append("\" y2=\"12\" stroke=\"#d62728\" stroke-width=\"2\"/>")
                .append("<text x=\"").append(LEFT + 115).append("\" y=\"16\">fail + info / s</text>")
                .append("<path d=\"M").append(LEFT + 230).append(",6 l10,0 l-5,12 z\" fill=\"#c00\"/>")
                .append("<text x=\"").append(LEFT + 245).append("\" y=\"16\">anomaly (links to its first operation)</text>")
                .append("</g>\n");
    }

    private void chartFrame(double max) {
        svg.append("<rect x=\"").append(LEFT).append("\" y=\"").append(CHART_TOP).append("\" width=\"").append(PLOT)
                .append("\" height=\"").append(CHART_HEIGHT).append("\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n");
        for (double v : new double[] {0, max / 2, max}) {
            double y = y(v, max);
            svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(fmt(y)).append("\" x2=\"").append(LEFT + PLOT)
                    .append("\" y2=\"").append(fmt(y)).append("\" stroke=\"#e4e4e4\"/>")
                    .append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(fmt(y + 4))
                    .append("\" text-anchor=\"end\" font-size=\"11\">").append(fmt(v)).append("</text>\n");
        }
        svg.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(CHART_TOP - 6)
                .append("\" text-anchor=\"end\" font-size=\"11\" class=\"muted\">per second</text>\n");
    }

    private void line(long[] perSecond, double max, String color, String name) {
        svg.append("<polyline class=\"").append(name).append("\" fill=\"none\" stroke=\"").append(color)
                .append("\" stroke-width=\"1.5\" points=\"");
        for (int s = 0; s < perSecond.length; s++) {
            double from = x((long) s * SECOND);
            double to = x(Math.min((long) (s + 1) * SECOND, (long) endNs));
            if (from > to) {
                break;
            }
            String y = fmt(y(perSecond[s], max));
            svg.append(fmt(from)).append(',').append(y).append(' ').append(fmt(to)).append(',').append(y).append(' ');
        }
        svg.append("\"/>\n");
    }

    private void marks(List<Anomaly> anomalies, Stories stories) {
        svg.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(MARKS_TOP + 12)
                .append("\" text-anchor=\"end\" font-size=\"11\">anomalies</text>\n");
        for (int i = 0; i < anomalies.size(); i++) {
            Anomaly a = anomalies.get(i);
            Optional<Op> first = a.ops().stream().map(stories::op).flatMap(Optional::stream)
                    .min((p, q) -> Long.compare(p.index(), q.index()));
            double x = first.map(op -> x(op.time())).orElse((double) (LEFT + PLOT));
            String href = first.map(op -> "#op-" + op.index()).orElse("#anomaly-" + (i + 1));
            svg.append("<a href=\"").append(href).append("\"><path class=\"mark\" d=\"M").append(fmt(x - 5)).append(',')
                    .append(MARKS_TOP).append(" l10,0 l-5,14 z\" fill=\"#c00\"/><title>#").append(i + 1).append(' ')
                    .append(esc(a.check())).append(' ').append(esc(a.kind())).append(' ').append(esc(a.subject()))
                    .append(": ").append(esc(a.message())).append("</title></a>\n");
        }
    }

    private void bands(List<FaultBand> bands, Map<String, Integer> rows) {
        for (Map.Entry<String, Integer> row : rows.entrySet()) {
            int top = BANDS_TOP + row.getValue() * ROW;
            svg.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(top + 14)
                    .append("\" text-anchor=\"end\" font-size=\"11\">").append(esc(row.getKey())).append("</text>")
                    .append("<line x1=\"").append(LEFT).append("\" y1=\"").append(top + ROW - 1).append("\" x2=\"")
                    .append(LEFT + PLOT).append("\" y2=\"").append(top + ROW - 1).append("\" stroke=\"#eee\"/>\n");
        }
        for (FaultBand band : bands) {
            int row = rows.get(band.kind());
            double from = x(band.start());
            svg.append("<rect class=\"band\" data-kind=\"").append(esc(band.kind())).append("\" x=\"").append(fmt(from))
                    .append("\" y=\"").append(BANDS_TOP + row * ROW + 2).append("\" width=\"")
                    .append(fmt(Math.max(2, x(band.end()) - from))).append("\" height=\"").append(ROW - 5)
                    .append("\" fill=\"").append(color(row)).append("\" fill-opacity=\"0.45\"><title>")
                    .append(esc(band.kind())).append(' ').append(esc(band.target())).append(", ")
                    .append(Html.seconds(band.start())).append("–").append(Html.seconds(band.end())).append(" s")
                    .append(band.stopped() ? "" : " (no stop: to the end)")
                    .append(band.detail() == null ? "" : ": " + esc(band.detail())).append("</title></rect>\n");
        }
    }

    private void xAxis(int axis) {
        double seconds = endNs / SECOND;
        long step = 1;
        for (long candidate : new long[] {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200}) {
            step = candidate;
            if (seconds / candidate <= 10) {
                break;
            }
        }
        svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(axis).append("\" x2=\"").append(LEFT + PLOT)
                .append("\" y2=\"").append(axis).append("\" stroke=\"#888\"/>\n");
        for (long s = 0; s <= seconds; s += step) {
            double x = x(s * SECOND);
            svg.append("<line x1=\"").append(fmt(x)).append("\" y1=\"").append(axis).append("\" x2=\"").append(fmt(x))
                    .append("\" y2=\"").append(axis + 4).append("\" stroke=\"#888\"/><text x=\"").append(fmt(x))
                    .append("\" y=\"").append(axis + 16).append("\" text-anchor=\"middle\" font-size=\"11\">").append(s)
                    .append(" s</text>\n");
        }
    }

    private double x(long nanos) {
        return LEFT + PLOT * Math.min(1.0, Math.max(0.0, nanos / endNs));
    }

    private static double y(double v, double max) {
        return CHART_TOP + CHART_HEIGHT - CHART_HEIGHT * (v / max);
    }

    static String color(int row) {
        return COLORS[row % COLORS.length];
    }

    private static long max(long[] values) {
        long m = 0;
        for (long v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    /** The smallest of 1, 2, 5 times a power of ten at least {@code v}. */
    static double nice(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String fmt(double v) {
        String s = String.format(Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
