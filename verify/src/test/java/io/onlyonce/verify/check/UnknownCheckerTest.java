package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.ALICE;
import static io.onlyonce.verify.check.Clean.BOB;
import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.order;
import static io.onlyonce.verify.check.FinalState.payment;
import static io.onlyonce.verify.check.HistoryBuilder.m;
import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.verify.history.History;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class UnknownCheckerTest {

    private final Checker checker = new UnknownChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("unknown", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        // k-a2 unknown and not applied; k-a3 refused; k-a1 and T1 answered after an unknown attempt
        assertThat(result.counts()).containsExactly(Map.entry("intents", 10L), Map.entry("unknown", 1L),
                Map.entry("unknownApplied", 0L), Map.entry("unknownNotApplied", 1L), Map.entry("unknownAppliedMoreThanOnce", 0L),
                Map.entry("refused", 1L), Map.entry("refusedIndefinite", 0L), Map.entry("convergedAfterUnknown", 2L),
                Map.entry("tokensUndecided", 0L), Map.entry("orderKeys", 5L), Map.entry("tokens", 2L), Map.entry("tradeNos", 3L));
    }

    @Test
    void anUnknownOrderThatTookEffectIsCountedApplied() {
        FinalState state = Clean.state().add("orders", order("O5", "k-a2", ALICE, 2, null, 1, "5.00", "UNPAID", null));
        CheckResult result = checker.check(Clean.with(state));
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("unknownApplied", 1L).containsEntry("unknownNotApplied", 0L);
    }

    @Test
    void anUnknownOrderThatTookEffectTwice() {
        FinalState state = Clean.state().add("orders", order("O5", "k-a2", ALICE, 2, null, 1, "5.00", "UNPAID", null))
                .add("orders", order("O6", "k-a2", ALICE, 2, null, 1, "5.00", "UNPAID", null));
        CheckResult result = checker.check(Clean.with(state));
        Expect.exactly(result, anomaly("applied-twice", "k-a2", 12, FINAL));
        assertThat(result.counts()).containsEntry("unknownAppliedMoreThanOnce", 1L);
    }

    @Test
    void anUnknownPaymentRecordedTwice() {
        // the run ended with T2's only attempt in flight (38): its invocation shows it
        History history = Clean.builder()
                .invoke("c5", "pay", Clean.pay("O2", "T2", "3.10", 1, false))
                .finalRead(Clean.state().add("payments", payment("T2", "O2", "3.10", "PAID"))
                        .add("payments", payment("T2", "O2", "3.10", "PAID")).value())
                .build();
        Expect.exactly(checker.check(history), anomaly("applied-twice", "T2", 37, 38));
    }

    @Test
    void anInvocationTheRunEndedWithCountsAsUnknown() {
        History history = Clean.builder().invoke("c5", "order", Clean.orderOp("bob", BOB, "k-b3", 1, 1, 1))
                .finalRead(Clean.state().value()).build();
        CheckResult result = checker.check(history);
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("unknown", 2L).containsEntry("unknownNotApplied", 2L);
    }

    @Test
    void aRefusedOrderThatTookEffect() {
        FinalState state = Clean.state().add("orders", order("O5", "k-a3", ALICE, 1, null, 4, "12.40", "UNPAID", null));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("refused-but-applied", "k-a3", 36, FINAL));
    }

    @Test
    void aRefusalThatDoesNotSayNothingHappenedIsNotDefinite() {
        History history = Clean.builder()
                .invoke("c5", "order", Clean.orderOp("bob", BOB, "k-b3", 1, 1, 1))
                .fail("c5", m("status", 409, "problem", "idempotency-request-in-progress"))
                .finalRead(Clean.state().add("orders", order("O5", "k-b3", BOB, 1, null, 1, "3.10", "UNPAID", null)).value())
                .build();
        CheckResult result = checker.check(history);
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("refused", 2L).containsEntry("refusedIndefinite", 1L);
    }

    @Test
    void aRefusedPaymentThatWasRecorded() {
        History history = Clean.builder()
                .invoke("c5", "pay", Clean.pay("O2", "T2", "3.10", 1, false))
                .fail("c5", m("status", 409, "problem", "order-cancelled"))
                .finalRead(Clean.state().add("payments", payment("T2", "O2", "3.10", "PAID")).value())
                .build();
        Expect.exactly(checker.check(history), anomaly("refused-but-applied", "T2", 38, 39));
    }

    @Test
    void aRefusedPurchaseOfAUsersOnlyTokenInASaleThatMadeAnOrder() {
        History history = Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("carol", 103, 7, "t-c", 1))
                .fail("c5", m("status", 409, "problem", "sold-out"))
                .finalRead(Clean.state().add("orders", order("O5", "rsv_R5", 103, 2, 7, 1, "1.00", "UNPAID", null)).value())
                .build();
        Expect.exactly(checker.check(history), anomaly("refused-but-applied", "t-c", 38, 39));
    }

    @Test
    void aRefusedPurchaseOfAUserWithSeveralTokensInTheSaleIsUndecided() {
        History history = Clean.builder()
                .invoke("c5", "purchase", Clean.purchase("bob", BOB, 7, "t-b2", 1))
                .fail("c5", m("status", 409, "problem", "sold-out"))
                .finalRead(Clean.state().value())
                .build();
        CheckResult result = checker.check(history);
        Expect.exactly(result);
        assertThat(result.counts()).containsEntry("tokensUndecided", 1L).containsEntry("intents", 10L);
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
