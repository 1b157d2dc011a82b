package io.onlyonce.verify.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Histories of real runs that failed, kept so that the checks keep failing them the same way.
 *
 * <p>{@code break-inbox-seed4.jsonl.gz}: {@code scripts/verify.sh --minutes 3 --seed 4 --faults
 * relay-republish,kill,rabbit-restart --break inbox}, the consumers' inbox without its primary key,
 * cut to its set-up, nemesis events, payment operations and final read (4,074 of its 12,375 lines;
 * what the messages and payments checks read). Re-sent outbox rows and RabbitMQ redeliveries
 * reached the consumers twice: every user was credited more points than paid, the points inbox
 * holds messages twice, and the shipment consumer's second deliveries were dead-lettered (the
 * shipment's primary key refused them).
 */
class RegressionHistoriesTest {

    @TempDir
    Path dir;

    @Test
    void theInboxBreakKeepsFailingOnPointsAndInboxDuplicatesNamingThePayments() throws Exception {
        History history = read("break-inbox-seed4.jsonl.gz");
        Map<String, CheckResult> results = Checks.run(history).stream()
                .collect(Collectors.toMap(CheckResult::check, r -> r));

        assertThat(kinds(results.get("messages"))).containsOnly(Map.entry("points-mismatch", 12L), Map.entry("inbox-duplicate", 92L));
        assertThat(kinds(results.get("liveness"))).containsOnlyKeys("queue-not-drained", "not-drained");
        assertThat(results.get("payments").valid()).isTrue();
        assertThat(results.get("at-most-once").valid()).isTrue();
        assertThat(results.get("stock").valid()).isTrue();

        // every inbox duplicate names the payments of its order: ok pay operations for that order, then the final read
        long finalRead = history.finalRead().orElseThrow().index();
        Map<Long, Op> byIndex = history.ops().stream().collect(Collectors.toMap(Op::index, op -> op));
        for (Anomaly duplicate : results.get("messages").anomalies().stream().filter(a -> a.kind().equals("inbox-duplicate")).toList()) {
            String orderNo = duplicate.subject().substring(0, duplicate.subject().length() - "_paid".length());
            List<Long> ops = duplicate.ops();
            assertThat(ops).last().isEqualTo(finalRead);
            assertThat(ops.subList(0, ops.size() - 1)).isNotEmpty().allSatisfy(i -> {
                assertThat(byIndex.get(i).f()).isEqualTo("pay");
                assertThat(byIndex.get(i).str("orderNo")).isEqualTo(orderNo);
            });
        }
    }

    private static Map<String, Long> kinds(CheckResult result) {
        return result.anomalies().stream().collect(Collectors.groupingBy(Anomaly::kind, TreeMap::new, Collectors.counting()));
    }

    private History read(String name) throws Exception {
        Path file = dir.resolve(name.replace(".gz", ""));
        try (InputStream in = new GZIPInputStream(getClass().getResourceAsStream("/histories/" + name))) {
            Files.copy(in, file);
        }
        return History.read(file);
    }
}
