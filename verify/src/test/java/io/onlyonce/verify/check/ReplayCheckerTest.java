package io.onlyonce.verify.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class ReplayCheckerTest {

    private final Checker checker = new ReplayChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("replay", kind, subject, ops);
    }

    /** The clean run plus one more answer ({@code answer}) to a retry of {@code key} by c5; that answer is op 38. */
    private static io.onlyonce.verify.history.History retry(String key, int productId, int quantity, Map<String, Object> answer) {
        return Clean.builder()
                .invoke("c5", "order", Clean.orderOp("bob", Clean.BOB, key, productId, quantity, 2))
                .ok("c5", answer)
                .finalRead(Clean.state().value())
                .build();
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("orderKeys", 3L), Map.entry("orderOks", 4L),
                Map.entry("orderReplays", 2L), Map.entry("tokens", 2L), Map.entry("purchaseOks", 3L),
                Map.entry("purchaseReplays", 1L));
    }

    @Test
    void amountsAreComparedAsNumbers() {
        Expect.exactly(checker.check(retry("k-b1", 1, 1, Clean.created("O2", "3.1", true))));
    }

    @Test
    void aReplayWithAnotherAmountDiffers() {
        Expect.exactly(checker.check(retry("k-b1", 1, 1, Clean.created("O2", "3.20", true))),
                anomaly("replay-differs", "k-b1", 8, 9, 38));
    }

    @Test
    void aReplayWithAnotherOrderDiffers() {
        Expect.exactly(checker.check(retry("k-b1", 1, 1, Clean.created("O5", "3.10", true))),
                anomaly("replay-differs", "k-b1", 8, 9, 38));
    }

    @Test
    void aSecondAnswerAsNewIsAnUnmarkedReplay() {
        Expect.exactly(checker.check(retry("k-b1", 1, 1, Clean.created("O2", "3.10", false))),
                anomaly("unmarked-replay", "k-b1", 8, 38));
    }

    @Test
    void oneAnswerAsNewAfterALostOneIsFine() {
        // k-a1's first answer was lost (2) and its retry answered replayed (5): one more replayed answer is fine
        Expect.exactly(checker.check(retry("k-a1", 1, 2, Clean.created("O1", "6.20", true))));
    }

    @Test
    void aPurchaseTokenAnsweredAsNewTwiceOrWithAnotherReservation() {
        io.onlyonce.verify.history.History history = Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("alice", Clean.ALICE, 7, "t-a", 1))
                .ok("c5", Clean.reserved("R1", false))
                .invoke("c5", "purchase", Clean.purchase("alice", Clean.ALICE, 7, "t-a", 1))
                .ok("c5", Clean.reserved("R9", true))
                .build();
        Expect.exactly(checker.check(history),
                anomaly("replay-differs", "t-a", 19, 20, 38, 40),
                anomaly("unmarked-replay", "t-a", 19, 38));
    }

    @Test
    void itNeedsNoFinalRead() {
        Expect.exactly(checker.check(Clean.builder().build()));
    }
}
