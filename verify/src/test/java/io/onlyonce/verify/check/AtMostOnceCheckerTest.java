package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.ALICE;
import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.order;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AtMostOnceCheckerTest {

    private final Checker checker = new AtMostOnceChecker();

    private static org.assertj.core.groups.Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("at-most-once", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(java.util.Map.entry("orders", 4L), java.util.Map.entry("businessIds", 4L),
                java.util.Map.entry("tokens", 2L), java.util.Map.entry("userSales", 1L));
    }

    @Test
    void aSecondOrderForOneKeyIsADuplicateEffect() {
        FinalState state = Clean.state().add("orders", order("O1b", "k-a1", ALICE, 1, null, 2, "6.20", "UNPAID", null));
        // both attempts of k-a1 (the lost answer and the replayed retry) and the final read
        Expect.exactly(checker.check(Clean.with(state)), anomaly("duplicate-effect", "k-a1", 2, 5, FINAL));
    }

    @Test
    void aSecondOrderOfOneReservationIsADuplicateAndBreaksTheSaleLimit() {
        FinalState state = Clean.state().add("orders", order("O5", "rsv_R1", ALICE, 2, 7, 1, "1.00", "UNPAID", null));
        Expect.exactly(checker.check(Clean.with(state)),
                anomaly("duplicate-effect", "rsv_R1", 19, 20, FINAL),
                anomaly("over-sale-limit", "101", 19, 20, FINAL));
    }

    @Test
    void aCancelledOrderDoesNotCountTowardsTheSaleLimit() {
        FinalState state = Clean.state().add("orders", order("O5", "rsv_R9", ALICE, 2, 7, 1, "1.00", "CANCELLED", null));
        Expect.exactly(checker.check(Clean.with(state)));
    }

    @Test
    void moreUnitsThanTheSaleAllowsIsOverTheSaleLimit() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O4").put("quantity", 2);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("over-sale-limit", "101", 19, 20, FINAL));
    }

    @Test
    void aTokenAnsweredWithTwoReservationsIsReused() {
        HistoryBuilder b = Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("bob", Clean.BOB, 7, "t-b", 2))
                .ok("c5", Clean.reserved("R3", true));
        long second = b.last();
        b.finalRead(Clean.state().value());
        Expect.exactly(checker.check(b.build()), anomaly("token-reused", "t-b", 22, second));
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
