package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.ALICE;
import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.inbox;
import static io.onlyonce.verify.check.FinalState.outbox;
import static io.onlyonce.verify.check.FinalState.shipment;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class MessagesCheckerTest {

    private final Checker checker = new MessagesChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("messages", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("paidOrders", 2L), Map.entry("outboxRows", 2L),
                Map.entry("shipments", 2L), Map.entry("inboxRows", 4L), Map.entry("users", 2L));
    }

    @Test
    void aPaidOrderWithoutItsOutboxRow() {
        FinalState state = Clean.state().remove("outbox", "id", "O1_paid");
        // O1's answered payments: PAID (26) and the late REPEATED (28)
        Expect.exactly(checker.check(Clean.with(state)), anomaly("outbox-missing", "O1", 26, 28, FINAL));
    }

    @Test
    void aPaidOrderWhoseOutboxRowWasNotSent() {
        FinalState state = Clean.state();
        state.row("outbox", "id", "O3_paid").put("status", "NEW");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("outbox-unsent", "O3", 30, 32, FINAL));
    }

    @Test
    void anOutboxRowOfAnOrderNotPaid() {
        FinalState state = Clean.state().add("outbox", outbox("O2_paid", "SUCCESS"));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("outbox-without-payment", "O2", FINAL));
    }

    @Test
    void pointsAreComparedAsNumbers() {
        Expect.exactly(checker.check(Clean.with(Clean.state().points("101", "6.2"))));
    }

    @Test
    void pointsCountedTwice() {
        FinalState state = Clean.state().points("101", "12.40");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("points-mismatch", "101", FINAL));
        assertThat(checker.check(Clean.with(state)).anomalies().get(0).message()).contains("12.40").contains("6.20");
    }

    @Test
    void aPaidOrderNotShipped() {
        FinalState state = Clean.state().remove("shipments", "orderNo", "O3");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("shipment-missing", "O3", 30, 32, FINAL));
    }

    @Test
    void aPaidOrderShippedTwice() {
        FinalState state = Clean.state().add("shipments", shipment("O1", ALICE));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("shipment-twice", "O1", 26, 28, FINAL));
    }

    @Test
    void anUnpaidOrderShipped() {
        FinalState state = Clean.state().add("shipments", shipment("O4", ALICE));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("shipment-without-payment", "O4", FINAL));
    }

    @Test
    void aMessageRecordedTwiceByOneConsumer() {
        FinalState state = Clean.state().add("inbox", inbox("points", "O1_paid"));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("inbox-duplicate", "O1_paid", 26, 28, FINAL));
    }

    @Test
    void pointsCreditedTwiceByAMessageTheInboxLetThroughNameThatOrdersPayments() {
        FinalState state = Clean.state().add("inbox", inbox("points", "O1_paid")).points("101", "12.40");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("inbox-duplicate", "O1_paid", 26, 28, FINAL),
                anomaly("points-mismatch", "101", 26, 28, FINAL));
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
