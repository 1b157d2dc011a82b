package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.ALICE;
import static io.onlyonce.verify.check.Clean.BOB;
import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.order;
import static io.onlyonce.verify.check.FinalState.reservation;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class AcknowledgedCheckerTest {

    private final Checker checker = new AcknowledgedChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("acknowledged", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("orderKeys", 3L), Map.entry("reservations", 2L),
                Map.entry("reservationsOrdered", 1L), Map.entry("reservationsQueued", 0L), Map.entry("reservationsAbsent", 0L),
                Map.entry("reservationsLostWithRedis", 0L), Map.entry("reservationsFailed.sold-out", 1L),
                Map.entry("purchaseOrders", 0L), Map.entry("payments", 4L), Map.entry("payments.PAID", 2L),
                Map.entry("payments.REPEATED", 1L), Map.entry("payments.REFUND", 1L), Map.entry("cancels", 1L));
    }

    @Test
    void anAnsweredOrderThatIsNotStoredIsLost() {
        FinalState state = Clean.state().remove("orders", "orderNo", "O3");
        // the order answered at 14 is gone, and with it the order its payment (30) was answered PAID for
        Expect.exactly(checker.check(Clean.with(state)),
                anomaly("lost-acknowledged", "k-b2", 14, FINAL),
                anomaly("lost-acknowledged", "T3", 30, FINAL));
    }

    @Test
    void anAnswerNamingAnotherOrderThanTheStoredOne() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O2").put("orderNo", "O9");
        // both answers of k-b1 named O2; O2's cancel (34) now finds no order
        Expect.exactly(checker.check(Clean.with(state)),
                anomaly("acknowledged-other-order", "k-b1", 8, 9, FINAL),
                anomaly("lost-acknowledged", "O2", 34, FINAL));
    }

    @Test
    void anOrderedReservationWithoutItsOrderIsLost() {
        FinalState state = Clean.state().remove("orders", "orderNo", "O4");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("lost-acknowledged", "t-a", 19, 20, FINAL));
    }

    @Test
    void aFailedReservationMustMakeNoOrder() {
        FinalState state = Clean.state().add("orders", order("O5", "rsv_R2", BOB, 2, 7, 1, "1.00", "UNPAID", null));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("failed-reservation-ordered", "t-b", 22, FINAL));
    }

    @Test
    void aQueuedReservationIsCountedAndLeftToLiveness() {
        FinalState state = Clean.state();
        state.row("reservations", "reservationId", "R1").put("status", "QUEUED");
        CheckResult result = checker.check(Clean.with(state));
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("reservationsQueued", 1L).containsEntry("reservationsAbsent", 0L)
                .containsEntry("reservationsOrdered", 0L);
    }

    @Test
    void aReservationMissingOrUnreadableIsLost() {
        FinalState state = Clean.state().remove("reservations", "reservationId", "R2");
        state.row("reservations", "reservationId", "R1").put("status", "HTTP 404");
        CheckResult result = checker.check(Clean.with(state));
        Expect.exactly(result,
                anomaly("lost-acknowledged", "t-a", 19, 20, FINAL),
                anomaly("lost-acknowledged", "t-b", 22, FINAL));
        assertThat(result.counts()).containsEntry("reservationsAbsent", 2L).doesNotContainKey("reservationsFailed.sold-out");
    }

    @Test
    void aReservationKnownOnlyFromARefusedReuseOfItsTokenMustBeDecidedToo() {
        // the 202 of token t-z was lost; its reuse (ops 37, 38) was refused 409 with the first answer, R7
        io.onlyonce.verify.history.History history = Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("carol", 103, 7, "t-z", 2))
                .fail("c5", HistoryBuilder.m("status", 409, "problem", "duplicate-submission", "firstStatus", 202,
                        "firstReservationId", "R7"))
                .finalRead(Clean.state().value()).build();
        Expect.exactly(checker.check(history), anomaly("lost-acknowledged", "t-z", 38, 39));
    }

    @Test
    void aReservationLostWithoutARedisRestartIsLost() {
        FinalState state = Clean.state();
        state.row("reservations", "reservationId", "R2").put("reason", "reservation-lost");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("lost-acknowledged", "t-b", 22, FINAL));
    }

    @Test
    void aReservationLostAfterARedisRestartIsCounted() {
        FinalState state = Clean.state();
        state.row("reservations", "reservationId", "R2").put("reason", "reservation-lost");
        io.onlyonce.verify.history.History history = Clean.builder()
                .nemesis("redis-restart", "start", "redis")
                .nemesis("redis-restart", "stop", "redis")
                .finalRead(state.value()).build();
        CheckResult result = checker.check(history);
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("reservationsLostWithRedis", 1L);
    }

    @Test
    void aRedisRestartBeforeTheAnswerDoesNotExplainALoss() {
        // Redis restarts (37, 38) before carol's purchase is answered (40): its loss is not explained
        io.onlyonce.verify.history.History history = Clean.builder()
                .nemesis("redis-restart", "start", "redis")
                .nemesis("redis-restart", "stop", "redis")
                .invoke("c5", "purchase", Clean.purchase("carol", 103, 7, "t-c", 1))
                .ok("c5", Clean.reserved("R5", false))
                .finalRead(Clean.state().add("reservations", reservation("R5", 103, 7, "FAILED", null, "reservation-lost")).value())
                .build();
        Expect.exactly(checker.check(history), anomaly("lost-acknowledged", "t-c", 40, 41));
    }

    /** The clean run plus carol's purchase answered synchronously with order O5 (38), then {@code state} (39). */
    private static io.onlyonce.verify.history.History syncPurchase(FinalState state) {
        return Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("carol", 103, 7, "t-c", 1))
                .ok("c5", HistoryBuilder.m("status", 201, "orderNo", "O5", "replayed", false))
                .finalRead(state.value()).build();
    }

    @Test
    void aSynchronousPurchaseAnsweredWithAnOrderNeedsExactlyThatOrder() {
        Map<String, Object> o5 = order("O5", "t-c", 103, 2, 7, 1, "1.00", "UNPAID", null);
        CheckResult result = checker.check(syncPurchase(Clean.state().add("orders", o5)));
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("purchaseOrders", 1L);
        Expect.exactly(checker.check(syncPurchase(Clean.state())), anomaly("lost-acknowledged", "t-c", 38, 39));
        Expect.exactly(checker.check(syncPurchase(Clean.state().add("orders", o5).add("orders", new java.util.LinkedHashMap<>(o5)))),
                anomaly("lost-acknowledged", "t-c", 38, 39));
    }

    @Test
    void anAnsweredOrderStoredWithAnotherAmountOrUser() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O1").put("amount", "6.30");
        state.row("orders", "orderNo", "O3").put("userId", ALICE);
        CheckResult result = checker.check(Clean.with(state));
        Expect.exactly(result,
                anomaly("acknowledged-other-order", "k-a1", 5, FINAL),
                anomaly("acknowledged-other-order", "k-b2", 14, FINAL));
        assertThat(result.anomalies().get(0).message()).contains("amount 6.20").contains("6.30");
        assertThat(result.anomalies().get(1).message()).contains("userId " + ALICE);
    }

    @Test
    void amountsOfAnAnsweredOrderAreComparedAsNumbers() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O1").put("amount", "6.2");
        Expect.exactly(checker.check(Clean.with(state)));
    }

    @Test
    void aPaymentAnsweredPaidMustBeRecorded() {
        // the late repeat (28) was answered REPEATED: it too needs the payment recorded
        FinalState state = Clean.state().remove("payments", "tradeNo", "T1");
        Expect.exactly(checker.check(Clean.with(state)),
                anomaly("lost-acknowledged", "T1", 26, FINAL),
                anomaly("lost-acknowledged", "T1", 28, FINAL));
    }

    @Test
    void aPaymentAnsweredRepeatedMustBeRecorded() {
        io.onlyonce.verify.history.History history = Clean.builder()
                .invoke("c5", "pay", Clean.pay("O2", "T2", "3.10", 1, true))
                .ok("c5", Clean.paid("REPEATED"))
                .finalRead(Clean.state().value()).build();
        Expect.exactly(checker.check(history), anomaly("lost-acknowledged", "T2", 38, 39));
    }

    @Test
    void aPaymentAnsweredPaidMustLeaveTheOrderPaid() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O1").put("status", "UNPAID");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("lost-acknowledged", "T1", 26, FINAL));
    }

    @Test
    void aPaymentAnsweredRefundMustHaveItsRefund() {
        FinalState state = Clean.state().remove("refunds", "tradeNo", "T3b");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("lost-acknowledged", "T3b", 32, FINAL));
    }

    @Test
    void aCancelAnsweredMustLeaveTheOrderCancelled() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O2").put("status", "UNPAID");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("lost-acknowledged", "O2", 34, FINAL));
    }

    @Test
    void aCancelAnsweredWithAnotherStatusDidNotCancel() {
        // the server answered 2xx saying the order is PAID (too late to cancel): nothing to find cancelled
        io.onlyonce.verify.history.History history = Clean.builder()
                .invoke("c5", "cancel", HistoryBuilder.m("user", "alice", "userId", Clean.ALICE, "orderNo", "O1", "attempt", 1))
                .ok("c5", HistoryBuilder.m("status", 200, "orderStatus", "PAID"))
                .finalRead(Clean.state().value()).build();
        CheckResult result = checker.check(history);
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("cancels", 1L).containsEntry("cancelsNotCancelling", 1L);
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
