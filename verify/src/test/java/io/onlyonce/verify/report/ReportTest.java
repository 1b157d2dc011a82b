package io.onlyonce.verify.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.verify.check.Anomaly;
import io.onlyonce.verify.check.CheckResult;
import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ReportTest {

    private static final long S = 1_000_000_000L;
    private static final String EVIL = "<script>alert(1)</script>";
    private static final String COMMAND = "scripts/verify.sh --minutes 1 --seed 42 --faults kill,redis-pause";
    private static final RunInfo INFO = new RunInfo(42, 1.0, List.of("kill", "redis-pause"), List.of(), COMMAND,
            Instant.parse("2025-01-02T03:04:05Z"), 65_400, List.of("drain took 1.2 s"));

    @TempDir
    Path dir;

    /** Appends operations with their index as position. */
    private static final class Ops {
        final List<Op> ops = new ArrayList<>();

        Ops add(long time, String process, OpType type, String f, Object... kv) {
            Map<String, Object> value = new LinkedHashMap<>();
            for (int i = 0; i < kv.length; i += 2) {
                value.put((String) kv[i], kv[i + 1]);
            }
            ops.add(new Op(ops.size(), time, process, type, f, value));
            return this;
        }

        History history() {
            return new History(ops);
        }
    }

    /**
     * 0 setup; K1 an order answered unknown then ok as O1 (1, 3, 6, 7) and paid (9, 10); K2 ok as O2 (4, 5);
     * a kill of seckill-1 from 2 to 8, a redis-pause at 11 never stopped; a purchase whose token holds a
     * script (12, 13); K3 in flight at the end (14); a refused cancel of O1 (15, 16); the final read (17).
     */
    private static History history() {
        return new Ops()
                .add(0, "setup", OpType.OK, "setup", "seed", 42)
                .add(S / 10, "c1", OpType.INVOKE, "order", "userId", "u1", "key", "K1", "attempt", 1)
                .add(S, "nemesis", OpType.INFO, "kill", "phase", "start", "target", "seckill-1", "detail", "kill -9")
                .add(3 * S / 2, "c1", OpType.INFO, "order", "userId", "u1", "key", "K1", "attempt", 1, "error", "timeout")
                .add(3 * S / 2 + 1, "c2", OpType.INVOKE, "order", "userId", "u2", "key", "K2", "attempt", 1)
                .add(21 * S / 10, "c2", OpType.OK, "order", "userId", "u2", "key", "K2", "attempt", 1, "status", 201,
                        "orderNo", "O2")
                .add(22 * S / 10, "c1", OpType.INVOKE, "order", "userId", "u1", "key", "K1", "attempt", 2)
                .add(3 * S, "c1", OpType.OK, "order", "userId", "u1", "key", "K1", "attempt", 2, "status", 201,
                        "orderNo", "O1", "replayed", false)
                .add(4 * S, "nemesis", OpType.INFO, "kill", "phase", "stop", "target", "seckill-1")
                .add(5 * S, "c3", OpType.INVOKE, "pay", "orderNo", "O1", "tradeNo", "T1", "amount", "10.00")
                .add(5 * S + 5, "c3", OpType.OK, "pay", "orderNo", "O1", "tradeNo", "T1", "amount", "10.00",
                        "result", "PAID")
                .add(6 * S, "nemesis", OpType.INFO, "redis-pause", "phase", "start", "target", "redis")
                .add(7 * S, "c4", OpType.INVOKE, "purchase", "userId", "u3", "token", EVIL)
                .add(7 * S + 3, "c4", OpType.FAIL, "purchase", "userId", "u3", "token", EVIL, "problem", "sold-out")
                .add(8 * S, "c2", OpType.INVOKE, "order", "userId", "u2", "key", "K3", "attempt", 1)
                .add(9 * S, "c5", OpType.INVOKE, "cancel", "userId", "u1", "orderNo", "O1", "attempt", 1)
                .add(9 * S + 7, "c5", OpType.FAIL, "cancel", "userId", "u1", "orderNo", "O1", "attempt", 1,
                        "problem", "order-paid")
                .add(10 * S, "final", OpType.OK, "read",
                        "orders", List.of(
                                Map.of("orderNo", "O1", "businessId", "K1", "userId", "u1", "status", "PAID"),
                                Map.of("orderNo", "O9", "businessId", "K1", "userId", "u1", "status", "UNPAID"),
                                Map.of("orderNo", "O2", "businessId", "K2", "userId", "u2", "status", "UNPAID")),
                        "payments", List.of(Map.of("tradeNo", "T1", "orderNo", "O1", "outcome", "PAID")),
                        "outbox", List.of(Map.of("id", "O1_paid", "status", "SENT"), Map.of("id", "O2_paid", "status", "SENT")),
                        "points", Map.of("u1", "10.00", "u2", "3.00"),
                        "drained", true, "drainMs", 1200)
                .history();
    }

    private static final Anomaly DUPLICATE = new Anomaly("at-most-once", "duplicate-effect", "K1",
            "business id K1 has 2 orders: O1, O9", List.of(1L, 3L, 6L, 7L));
    private static final Anomaly SCRIPT = new Anomaly("liveness", "stuck", EVIL, "token " + EVIL + " left queued",
            List.of(13L));
    private static final Anomaly STOCK = new Anomaly("stock", "redis-mismatch", "activity 1",
            "Redis stock 3, database stock 2", List.of());
    private static final Anomaly REPLAY = new Anomaly("replay", "not-marked-replayed", "K1",
            "the second 2xx for K1 is not marked replayed", List.of(7L));

    private static List<CheckResult> invalid() {
        return List.of(
                new CheckResult("at-most-once", "at most one order per business id", Map.of("businessIds", 3L),
                        List.of(DUPLICATE)),
                new CheckResult("replay", "every 2xx after the first is replayed", Map.of("keys", 3L), List.of(REPLAY)),
                new CheckResult("liveness", "nothing left in progress", Map.of("tokens", 1L), List.of(SCRIPT)),
                new CheckResult("stock", "initial = sold + left", Map.of("sales", 1L), List.of(STOCK)),
                new CheckResult("payments", "each payment once", Map.of("tradeNos", 1L), List.of()));
    }

    private static List<CheckResult> valid() {
        return List.of(new CheckResult("at-most-once", "at most one order per business id", Map.of("businessIds", 3L),
                List.of()), new CheckResult("payments", "each payment once", Map.of("tradeNos", 1L), List.of()));
    }

    private String html() throws Exception {
        return Files.readString(dir.resolve("report.html"));
    }

    private static int occurrences(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }

    /** The row with id op-N: its cells' text. */
    private static String row(String html, long index) {
        Matcher m = Pattern.compile("<tr id=\"op-" + index + "\"[^>]*>(.*?)</tr>").matcher(html);
        assertThat(m.find()).as("row op-%d", index).isTrue();
        return m.group(1);
    }

    @Test
    void writesBothFiles() {
        Report.write(dir.resolve("run"), history(), invalid(), INFO);

        assertThat(dir.resolve("run/report.html")).isRegularFile();
        assertThat(dir.resolve("run/anomalies.json")).isRegularFile();
    }

    @Test
    void anomaliesJsonHasTheVerdictTheChecksAndEachAnomalyWithItsOps() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String text = Files.readString(dir.resolve("anomalies.json"));
        JsonNode root = JsonMapper.builder().build().readTree(text);

        assertThat(text).contains("\n  \"seed\" : 42");
        assertThat(root.get("valid").asBoolean()).isFalse();
        assertThat(root.get("seed").asLong()).isEqualTo(42);
        assertThat(root.get("command").asString()).isEqualTo(COMMAND);
        assertThat(root.get("checks")).hasSize(5);
        JsonNode first = root.get("checks").get(0);
        assertThat(first.get("check").asString()).isEqualTo("at-most-once");
        assertThat(first.get("valid").asBoolean()).isFalse();
        assertThat(first.get("counts").get("businessIds").asLong()).isEqualTo(3);
        assertThat(first.get("anomalies").asInt()).isEqualTo(1);
        JsonNode last = root.get("checks").get(4);
        assertThat(last.get("check").asString()).isEqualTo("payments");
        assertThat(last.get("valid").asBoolean()).isTrue();
        assertThat(last.get("anomalies").asInt()).isZero();

        JsonNode anomalies = root.get("anomalies");
        assertThat(anomalies).hasSize(4);
        JsonNode dup = anomalies.get(0);
        assertThat(dup.get("check").asString()).isEqualTo("at-most-once");
        assertThat(dup.get("kind").asString()).isEqualTo("duplicate-effect");
        assertThat(dup.get("subject").asString()).isEqualTo("K1");
        assertThat(dup.get("message").asString()).isEqualTo("business id K1 has 2 orders: O1, O9");
        List<Long> ops = new ArrayList<>();
        dup.get("ops").forEach(n -> ops.add(n.asLong()));
        assertThat(ops).containsExactly(1L, 3L, 6L, 7L);
        assertThat(anomalies.get(2).get("subject").asString()).isEqualTo(EVIL);
        assertThat(anomalies.get(3).get("ops")).isEmpty();
    }

    @Test
    void everyAnomalyOpHasOneRowAndMarksLinkToTheFirstOp() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String html = html();

        for (long index : List.of(1L, 3L, 6L, 7L, 13L)) {
            assertThat(occurrences(html, "id=\"op-" + index + "\"")).as("op %d", index).isEqualTo(1);
            assertThat(html).contains("<a href=\"#op-" + index + "\">" + index + "</a>");
        }
        // op 7 is named by two anomalies: one row with the id, the second a link to it
        assertThat(occurrences(html, "<td class=\"n\"><a href=\"#op-7\">7</a></td>")).isEqualTo(1);
        assertThat(occurrences(html, "<path class=\"mark\"")).isEqualTo(4);
        assertThat(occurrences(html, "<a href=\"#op-1\"><path class=\"mark\"")).isEqualTo(1);
        assertThat(occurrences(html, "<a href=\"#op-7\"><path class=\"mark\"")).isEqualTo(1);
        assertThat(occurrences(html, "<a href=\"#op-13\"><path class=\"mark\"")).isEqualTo(1);
        assertThat(occurrences(html, "<a href=\"#anomaly-4\"><path class=\"mark\"")).isEqualTo(1);
        assertThat(occurrences(html, "<tr class=\"anomaly\"")).isEqualTo(4);
        assertThat(html).contains("<tr class=\"anomaly\" id=\"anomaly-1\">").contains("<tr class=\"anomaly\" id=\"anomaly-4\">");
    }

    @Test
    void aStoryHasTheIntentsOtherOpsAndTheFinalReadsRowsAboutIt() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String html = html();

        // the payment and the cancel of O1 (K1's order number) belong to K1's story; K2 and K3 do not
        assertThat(html).contains("id=\"op-9\"").contains("id=\"op-10\"").contains("id=\"op-15\"")
                .contains("id=\"op-16\"");
        assertThat(html).doesNotContain("id=\"op-4\"").doesNotContain("id=\"op-5\"").doesNotContain("id=\"op-14\"");
        assertThat(html).contains("<tr id=\"op-1\" class=\"hit\">").contains("<tr id=\"op-9\">");
        assertThat(row(html, 3)).contains("<td class=\"n\">1.500</td><td>c1</td><td>info</td><td>order</td>")
                .contains("&quot;error&quot;:&quot;timeout&quot;");
        String finalRead = row(html, 17);
        assertThat(finalRead).contains("O1").contains("O9").contains("T1").contains("O1_paid")
                .contains("&quot;u1&quot;:&quot;10.00&quot;").contains("&quot;drained&quot;:true");
        assertThat(finalRead).doesNotContain("O2").doesNotContain("u2");
        assertThat(html).contains("No operation in the history names it.");
    }

    @Test
    void anAnomalyNamingNoOpIsToldByItsSubject() throws Exception {
        Anomaly onlyFinal = new Anomaly("acknowledged", "missing-effect", "K2", "K2 was answered O2, which is not stored",
                List.of());
        Report.write(dir, history(), List.of(new CheckResult("acknowledged", "d", Map.of(), List.of(onlyFinal))), INFO);
        String html = html();

        assertThat(html).contains("<tr id=\"op-4\">").contains("<tr id=\"op-5\">").contains("id=\"op-17\"")
                .doesNotContain("id=\"op-1\"").doesNotContain("class=\"hit\"");
        assertThat(row(html, 17)).contains("O2_paid").contains("&quot;u2&quot;:&quot;3.00&quot;").doesNotContain("O1");
        assertThat(html).contains("<a href=\"#anomaly-1\"><path class=\"mark\"").contains("final read only");
    }

    @Test
    void bandsOnePerFaultAndARowPerKindAnUnstoppedOneRunsToTheEnd() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String html = html();

        assertThat(occurrences(html, "<rect class=\"band\"")).isEqualTo(2);
        assertThat(occurrences(html, "data-kind=\"kill\"")).isEqualTo(1);
        assertThat(occurrences(html, "data-kind=\"redis-pause\"")).isEqualTo(1);
        assertThat(html).contains("<title>kill seckill-1, 1.000–4.000 s: kill -9</title>");
        assertThat(html).contains("<title>redis-pause redis, 6.000–10.000 s (no stop: to the end)</title>");
        assertThat(html).contains("font-size=\"11\">kill</text>").contains("font-size=\"11\">redis-pause</text>");
        assertThat(html).contains("<polyline class=\"throughput\"").contains("<polyline class=\"errors\"");
    }

    @Test
    void headerHasTheVerdictTheSeedAndTheCommand() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String html = html();

        assertThat(html).contains("<h1 class=\"verdict invalid\">INVALID: 4 anomalies</h1>");
        assertThat(html).contains("<dt>seed</dt><dd>42</dd>");
        assertThat(html).contains("<pre class=\"command\">" + COMMAND + "</pre>");
        assertThat(html).contains("<dt>duration</dt><dd>1 min 5.4 s</dd>");
        assertThat(html).contains("<dd>drain took 1.2 s</dd>");
        assertThat(html).contains("<td>at-most-once</td><td>at most one order per business id</td>"
                + "<td class=\"invalid\">INVALID</td><td>businessIds=3</td><td class=\"n\"><a href=\"#anomaly-1\">1</a></td>");
        assertThat(html).contains("<td class=\"valid\">VALID</td><td>tradeNos=1</td><td class=\"n\">0</td>");
        assertThat(html).contains("<a href=\"#anomaly-3\">1</a>");
    }

    @Test
    void countsOperationsByFAndTypeAndFaultsByKind() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String html = html();

        assertThat(html).contains("<tr><td>order</td><td class=\"n\">4</td><td class=\"n\">2</td><td class=\"n\">0</td>"
                + "<td class=\"n\">1</td><td class=\"n\">1</td></tr>");
        assertThat(html).contains("<tr><td>purchase</td><td class=\"n\">1</td><td class=\"n\">0</td><td class=\"n\">1</td>"
                + "<td class=\"n\">0</td><td class=\"n\">0</td></tr>");
        assertThat(html).containsPattern("kill</td><td class=\"n\">1</td><td>seckill-1</td>");
        assertThat(html).containsPattern("redis-pause</td><td class=\"n\">1</td><td>redis</td>");
    }

    @Test
    void escapesEveryTextFromTheHistoryAndTheChecks() throws Exception {
        Report.write(dir, history(), invalid(), INFO);
        String html = html();

        assertThat(html).doesNotContainIgnoringCase("<script");
        assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
        assertThat(row(html, 13)).contains("&quot;token&quot;:&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;");
        assertThat(html).doesNotContain("http://").doesNotContain("https://").doesNotContain("src=");
    }

    @Test
    void aValidRunSaysValidAndListsNoAnomaly() throws Exception {
        Report.write(dir, history(), valid(), INFO);
        String html = html();
        JsonNode root = JsonMapper.builder().build().readTree(Files.readString(dir.resolve("anomalies.json")));

        assertThat(html).contains("<h1 class=\"verdict valid\">VALID</h1>").contains("No anomalies.");
        assertThat(html).doesNotContain("class=\"anomaly\"").doesNotContain("id=\"op-").doesNotContain("class=\"mark\"")
                .doesNotContain("id=\"stories\"");
        assertThat(root.get("valid").asBoolean()).isTrue();
        assertThat(root.get("anomalies")).isEmpty();
    }

    @Test
    void summaryListsCountsFaultsChecksAndTheAnomalies() {
        String summary = Report.summary(history(), invalid());

        assertThat(summary.lines()).containsSubsequence(
                "operations: 13 client lines",
                "  order      invoke=4 ok=2 fail=0 info=1 in-flight=1",
                "  pay        invoke=1 ok=1 fail=0 info=0",
                "  purchase   invoke=1 ok=0 fail=1 info=0",
                "  cancel     invoke=1 ok=0 fail=1 info=0",
                "faults: kill=1 redis-pause=1",
                "  at-most-once INVALID 1 anomaly",
                "  replay       INVALID 1 anomaly",
                "  liveness     INVALID 1 anomaly",
                "  stock        INVALID 1 anomaly",
                "  payments     VALID   0 anomalies",
                "INVALID: 4 anomalies",
                "  at-most-once duplicate-effect K1: business id K1 has 2 orders: O1, O9 ops [1, 3, 6, 7]",
                "  stock redis-mismatch activity 1: Redis stock 3, database stock 2 ops []");
        assertThat(Report.summary(history(), valid()).lines()).contains("VALID").doesNotContain("INVALID");
    }

    @Test
    void summaryListsTheFirstTwentyAnomalies() {
        List<Anomaly> many = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            many.add(new Anomaly("acknowledged", "lost", "K" + i, "lost " + i, List.of()));
        }
        String summary = Report.summary(history(), List.of(new CheckResult("acknowledged", "d", Map.of(), many)));

        assertThat(summary.lines().filter(l -> l.startsWith("  acknowledged lost ")).count()).isEqualTo(20);
        assertThat(summary).contains("  acknowledged lost K19: lost 19 ops []\n").doesNotContain("K20:")
                .contains("  ... and 5 more (anomalies.json)");
    }

    @Test
    void aHistoryWithoutClientOpsAndAnUnstoppedFault() throws Exception {
        History history = new Ops()
                .add(0, "setup", OpType.OK, "setup")
                .add(2 * S, "nemesis", OpType.INFO, "pause", "phase", "start", "target", "seckill-2")
                .add(3 * S, "final", OpType.OK, "read", "drained", false)
                .history();
        List<CheckResult> results = List.of(new CheckResult("liveness", "drained", Map.of(),
                List.of(new Anomaly("liveness", "not-drained", "drain", "the drain timed out", List.of(2L)))));

        Report.write(dir, history, results, INFO);
        String html = html();

        assertThat(html).contains("no client operations").contains("No client operations.");
        assertThat(html).contains("<title>pause seckill-2, 2.000–3.000 s (no stop: to the end)</title>");
        assertThat(row(html, 2)).contains("<td>final</td><td>ok</td><td>read</td>").contains("&quot;drained&quot;:false");
        assertThat(Report.summary(history, results)).contains("operations: 0 client lines\n").contains("faults: pause=1\n");
    }

    @Test
    void anEmptyHistoryAndNoChecks() throws Exception {
        Report.write(dir, new History(List.of()), List.of(), INFO);

        assertThat(html()).contains("<h1 class=\"verdict valid\">VALID</h1>").contains("No faults.");
        assertThat(Report.summary(new History(List.of()), List.of())).contains("faults: none\n").endsWith("VALID\n");
    }

    @Test
    void theOperationsSectionIsCapped() throws Exception {
        Ops ops = new Ops();
        for (int i = 0; i < 20_000; i++) {
            ops.add((long) i * S / 100, "c" + (i % 50), OpType.INVOKE, "order", "key", "K" + i);
            ops.add((long) i * S / 100 + 1, "c" + (i % 50), OpType.OK, "order", "key", "K" + i, "orderNo", "O" + i);
        }
        List<Anomaly> anomalies = new ArrayList<>();
        for (int a = 0; a < 20; a++) {
            List<Long> named = new ArrayList<>();
            for (int j = 0; j < 150; j++) {
                named.add((long) 2 * (a * 150 + j) + 1);
            }
            anomalies.add(new Anomaly("acknowledged", "lost", "A" + a, "m", named));
        }
        Report.write(dir, ops.history(), List.of(new CheckResult("acknowledged", "d", Map.of(), anomalies)), INFO);
        String html = html();

        // each story: its 150 completions and their 150 invocations (same key); 10 stories fill 3000 rows
        assertThat(occurrences(html, "<tr id=\"op-")).isEqualTo(HtmlReport.MAX_ROWS);
        assertThat(html).contains("id=\"op-2999\"").doesNotContain("id=\"op-3001\"");
        assertThat(html).contains("Cut at 3000 rows: the operations of anomalies 11 to 20 are not shown here");
        assertThat(html).contains("<polyline class=\"throughput\"").contains(">180 s</text>").doesNotContain(">210 s</text>");
    }
}
