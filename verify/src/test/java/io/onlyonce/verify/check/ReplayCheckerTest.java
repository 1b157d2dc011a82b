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
                Map.entry("purchaseReplays", 1L), Map.entry("tradeNos", 3L), Map.entry("payOks", 4L), Map.entry("payReplays", 1L));
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

    /** The clean run plus carol's synchronous purchase answered with {@code first} (38) and then {@code second} (40). */
    private static io.onlyonce.verify.history.History syncPurchase(String first, String second, boolean secondReplayed) {
        return Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("carol", 103, 7, "t-c", 1))
                .ok("c5", HistoryBuilder.m("status", 201, "orderNo", first, "replayed", false))
                .invoke("c5", "purchase", Clean.purchase("carol", 103, 7, "t-c", 1))
                .ok("c5", HistoryBuilder.m("status", secondReplayed ? 200 : 201, "orderNo", second, "replayed", secondReplayed))
                .build();
    }

    @Test
    void aSynchronousPurchaseIsReplayedWithItsOrder() {
        Expect.exactly(checker.check(syncPurchase("O5", "O5", true)));
        Expect.exactly(checker.check(syncPurchase("O5", "O6", true)), anomaly("replay-differs", "t-c", 38, 40));
        Expect.exactly(checker.check(syncPurchase("O5", "O5", false)), anomaly("unmarked-replay", "t-c", 38, 40));
    }

    /** The clean run plus a reuse of token t-a (ops 37, 38) refused 409 duplicate-submission with {@code first} as its first answer. */
    private static io.onlyonce.verify.history.History reusedToken(String first) {
        return Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("alice", 101, 7, "t-a", 2))
                .fail("c5", HistoryBuilder.m("status", 409, "problem", "duplicate-submission", "firstStatus", 202,
                        "firstReservationId", first))
                .build();
    }

    @Test
    void aReusedTokenIsToldItsFirstAnswer() {
        Expect.exactly(checker.check(reusedToken("R1")));
        Expect.exactly(checker.check(reusedToken("R9")), anomaly("replay-differs", "t-a", 19, 20, 38));
    }

    /** The clean run plus one more answer to a repeat of T1 (op 38), for order {@code orderNo}. */
    private static io.onlyonce.verify.history.History payAgain(String orderNo, String result, String outcome) {
        return Clean.builder()
                .invoke("c5", "pay", Clean.pay(orderNo, "T1", "6.20", 1, true))
                .ok("c5", Clean.paid(result, outcome))
                .build();
    }

    @Test
    void aPaymentAnsweredAgainTheSameWay() {
        CheckResult result = checker.check(payAgain("O1", "REPEATED", "PAID"));
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("payOks", 5L).containsEntry("payReplays", 2L);
    }

    @Test
    void aPaymentAnsweredWithAnotherOutcomeDiffers() {
        Expect.exactly(checker.check(payAgain("O1", "REFUND", "REFUND")), anomaly("replay-differs", "T1", 26, 28, 38));
    }

    @Test
    void aPaymentAnsweredForAnotherOrderDiffers() {
        Expect.exactly(checker.check(payAgain("O2", "REPEATED", "PAID")), anomaly("replay-differs", "T1", 26, 28, 38));
    }

    @Test
    void itNeedsNoFinalRead() {
        Expect.exactly(checker.check(Clean.builder().build()));
    }
}
