package io.onlyonce.verify.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.verify.history.History;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChecksTest {

    @Test
    void theCheckersAreInTheReadmesOrder() {
        assertThat(Checks.all()).extracting(Checker::name).containsExactly("at-most-once", "acknowledged", "replay",
                "fingerprint", "unknown", "stock", "messages", "payments", "liveness");
    }

    @Test
    void aCleanRunPassesEveryCheckWithWhatEachLookedAt() {
        List<CheckResult> results = Checks.run(Clean.history());
        assertThat(results).extracting(CheckResult::check).containsExactly("at-most-once", "acknowledged", "replay",
                "fingerprint", "unknown", "stock", "messages", "payments", "liveness");
        assertThat(results).allSatisfy(r -> {
            assertThat(r.valid()).as(r.check() + " " + r.anomalies()).isTrue();
            assertThat(r.description()).isNotBlank();
        });
        Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
        results.forEach(r -> counts.put(r.check(), r.counts()));
        assertThat(counts.get("at-most-once")).containsEntry("businessIds", 4L).containsEntry("tokens", 2L);
        assertThat(counts.get("acknowledged")).containsEntry("orderKeys", 3L).containsEntry("reservationsFailed.sold-out", 1L)
                .containsEntry("cancels", 1L);
        assertThat(counts.get("replay")).containsEntry("orderOks", 4L).containsEntry("orderReplays", 2L)
                .containsEntry("purchaseReplays", 1L);
        assertThat(counts.get("fingerprint")).containsEntry("alteredAttempts", 1L).containsEntry("alteredRefused", 1L);
        assertThat(counts.get("unknown")).containsEntry("unknownNotApplied", 1L).containsEntry("convergedAfterUnknown", 2L);
        assertThat(counts.get("stock")).containsEntry("products", 2L).containsEntry("activities", 1L);
        assertThat(counts.get("messages")).containsEntry("paidOrders", 2L).containsEntry("inboxRows", 4L);
        assertThat(counts.get("payments")).containsEntry("payments", 3L).containsEntry("refunds", 1L);
        assertThat(counts.get("liveness")).containsEntry("queues", 1L).containsEntry("reservations", 2L);
    }

    @Test
    void withoutAFinalReadEveryCheckThatNeedsItSaysSo() {
        List<CheckResult> results = Checks.run(Clean.builder().build());
        for (CheckResult r : results) {
            if (r.check().equals("replay")) {
                assertThat(r.valid()).isTrue();
            } else {
                assertThat(r.anomalies()).extracting(Anomaly::check, Anomaly::kind, Anomaly::subject, Anomaly::ops)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple(r.check(), "no-final-read", "final read", List.of()));
            }
        }
    }

    @Test
    void withoutASetUpTheChecksThatNeedItSaySo() {
        History history = new HistoryBuilder().finalRead(new FinalState().value()).build();
        assertThat(Checks.run(history)).filteredOn(r -> !r.valid())
                .extracting(CheckResult::check, r -> r.anomalies().stream().map(Anomaly::kind).toList())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("at-most-once", List.of("no-setup")),
                        org.assertj.core.groups.Tuple.tuple("stock", List.of("no-setup")),
                        org.assertj.core.groups.Tuple.tuple("messages", List.of("no-setup")),
                        org.assertj.core.groups.Tuple.tuple("liveness", List.of("no-setup")));
    }
}
