package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.payment;
import static io.onlyonce.verify.check.FinalState.refund;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class PaymentsCheckerTest {

    private final Checker checker = new PaymentsChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("payments", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("payments", 3L), Map.entry("tradeNos", 3L),
                Map.entry("paidPayments", 2L), Map.entry("refundPayments", 1L), Map.entry("refunds", 1L));
    }

    @Test
    void aPaymentRecordedTwice() {
        FinalState state = Clean.state().add("payments", payment("T1", "O1", "6.20", "PAID"));
        // every attempt of T1: the lost answer (24), PAID (26), the late repeat (28)
        Expect.exactly(checker.check(Clean.with(state)), anomaly("payment-recorded-twice", "T1", 24, 26, 28, FINAL));
    }

    @Test
    void anOrderPaidByTwoPayments() {
        FinalState state = Clean.state().add("payments", payment("T9", "O1", "6.20", "PAID"));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("paid-twice", "O1", 24, 26, 28, FINAL));
    }

    @Test
    void aPaidOrderNamingAnotherPayment() {
        FinalState state = Clean.state();
        state.row("orders", "orderNo", "O1").put("tradeNo", "T9");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("paid-by-unknown-payment", "O1", FINAL));
    }

    @Test
    void aRefundPaymentWithoutItsRefund() {
        FinalState state = Clean.state().remove("refunds", "tradeNo", "T3b");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("refund-missing", "T3b", 32, FINAL));
    }

    @Test
    void aPaymentRefundedTwice() {
        FinalState state = Clean.state().add("refunds", refund("O3", "T3b", "3.10"));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("refund-twice", "T3b", 32, FINAL));
    }

    @Test
    void aRefundOfNoRefundPayment() {
        FinalState state = Clean.state().add("refunds", refund("O1", "T1", "6.20"));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("refund-without-payment", "T1", 24, 26, 28, FINAL));
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
