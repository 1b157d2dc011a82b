package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.BOB;
import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.order;
import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.verify.history.History;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class FingerprintCheckerTest {

    private final Checker checker = new FingerprintChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("fingerprint", kind, subject, ops);
    }

    /** The clean run plus a third, altered attempt of k-b2 (p1 x 3) by c5 (37 invoke, 38 answer), then {@code state}. */
    private static HistoryBuilder alteredRetry(Map<String, Object> answer) {
        Map<String, Object> altered = Clean.orderOp("bob", BOB, "k-b2", 1, 3, 3);
        altered.put("altered", true);
        return Clean.builder().invoke("c5", "order", altered).ok("c5", answer);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("keys", 5L), Map.entry("alteredAttempts", 1L),
                Map.entry("alteredRefused", 1L), Map.entry("alteredAccepted", 0L), Map.entry("alteredUnknown", 0L));
    }

    @Test
    void anAlteredBodyExecutedAsNewIsABypass() {
        History history = alteredRetry(Clean.created("O3", "3.10", false)).finalRead(Clean.state().value()).build();
        CheckResult result = checker.check(history);
        // two bodies executed for k-b2 (14 and 38), and the 2xx at 38 was for a body the stored order does not have
        Expect.exactly(result,
                anomaly("fingerprint-bypass", "k-b2", 14, 38),
                anomaly("altered-body-accepted", "k-b2", 37, 38, 39));
        assertThat(result.counts()).containsEntry("alteredAttempts", 2L).containsEntry("alteredAccepted", 1L);
    }

    @Test
    void anAlteredBodyAnsweredWithTheFirstOrdersReplayWasAccepted() {
        History history = alteredRetry(Clean.created("O3", "3.10", true)).finalRead(Clean.state().value()).build();
        Expect.exactly(checker.check(history), anomaly("altered-body-accepted", "k-b2", 37, 38, 39));
    }

    @Test
    void anAlteredRetryOfAnIntentNeverAppliedMayTakeEffect() {
        // k-a2's first attempt (11) was unknown and not applied; its altered retry (p2 x 2) is the one stored
        Map<String, Object> altered = Clean.orderOp("alice", Clean.ALICE, "k-a2", 2, 2, 2);
        altered.put("altered", true);
        History history = Clean.builder().invoke("c1", "order", altered).ok("c1", Clean.created("O5", "10.00", false))
                .finalRead(Clean.state().add("orders", order("O5", "k-a2", Clean.ALICE, 2, null, 2, "10.00", "UNPAID", null)).value())
                .build();
        Expect.exactly(checker.check(history));
    }

    @Test
    void aStoredBodyOfNoAttemptIsAMismatch() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O1").put("quantity", 5);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("body-mismatch", "k-a1", 1, 4, FINAL));
    }

    @Test
    void withoutAFinalReadTheBypassIsStillFound() {
        History history = alteredRetry(Clean.created("O3", "3.10", false)).build();
        Expect.exactly(checker.check(history),
                anomaly("fingerprint-bypass", "k-b2", 14, 38),
                anomaly("no-final-read", "final read"));
    }
}
