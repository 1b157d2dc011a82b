package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.Clean.FINAL;
import static io.onlyonce.verify.check.FinalState.inProgress;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class LivenessCheckerTest {

    private final Checker checker = new LivenessChecker();

    private static Tuple anomaly(String kind, String subject, long... ops) {
        return Expect.anomaly("liveness", kind, subject, ops);
    }

    @Test
    void aCleanRunPasses() {
        CheckResult result = checker.check(Clean.history());
        Expect.exactly(result);
        assertThat(result.counts()).containsExactly(Map.entry("inProgress", 1L), Map.entry("queues", 1L),
                Map.entry("reservations", 2L), Map.entry("outboxRows", 2L), Map.entry("drainMs", 1200L));
    }

    @Test
    void aRecordInProgressPastItsLeaseAndTheGrace() {
        // lease 5000 ms + 30000 ms grace: 35000 is still fine, 35001 is stuck
        FinalState state = Clean.state().add("inProgress", inProgress("k-y", 35_000)).add("inProgress", inProgress("k-z", 35_001));
        Expect.exactly(checker.check(Clean.with(state)), anomaly("stuck-in-progress", "k-z", FINAL));
    }

    /**
     * The clean run plus an order key whose first attempt (37, at 37 ms) timed out and whose second
     * was refused as in progress (40) {@code waitMs} + 3 ms after the first was sent.
     */
    private static io.onlyonce.verify.history.History refusedInProgressAfter(long waitMs) {
        return Clean.builder()
                .invoke("c5", "order", Clean.orderOp("bob", Clean.BOB, "k-b3", 1, 1, 1))
                .info("c5", HistoryBuilder.m("error", "timeout"))
                .sleep(waitMs)
                .invoke("c5", "order", Clean.orderOp("bob", Clean.BOB, "k-b3", 1, 1, 2))
                .fail("c5", HistoryBuilder.m("status", 409, "problem", "idempotency-request-in-progress"))
                .finalRead(Clean.state().value())
                .build();
    }

    @Test
    void aKeyRefusedInProgressPastItsLeaseAndTheGrace() {
        // lease 5000 ms + 10000 ms: refused 15001 ms after the first attempt is stuck
        Expect.exactly(checker.check(refusedInProgressAfter(14_998)), anomaly("stuck-in-progress", "k-b3", 37, 40));
    }

    @Test
    void aKeyRefusedInProgressWithinItsLeaseAndTheGrace() {
        // refused exactly 15000 ms after the first attempt: still fine
        Expect.exactly(checker.check(refusedInProgressAfter(14_997)));
    }

    @Test
    void aQueueNotEmpty() {
        FinalState state = Clean.state();
        state.row("queues", "name", "seckill.orders").put("messages", 3);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("queue-not-drained", "seckill.orders", FINAL));
    }

    @Test
    void aReservationStillQueued() {
        FinalState state = Clean.state();
        state.row("reservations", "reservationId", "R1").put("status", "QUEUED");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("reservation-undecided", "t-a", 19, 20, FINAL));
    }

    @Test
    void anOutboxRowNotSent() {
        FinalState state = Clean.state();
        state.row("outbox", "id", "O1_paid").put("status", "NEW");
        Expect.exactly(checker.check(Clean.with(state)), anomaly("outbox-not-drained", "O1", FINAL));
    }

    @Test
    void theDrainTimedOut() {
        FinalState state = Clean.state().put("drained", false).put("drainMs", 120_000);
        Expect.exactly(checker.check(Clean.with(state)), anomaly("not-drained", "drain", FINAL));
    }

    @Test
    void withoutAFinalReadItCannotDecide() {
        Expect.exactly(checker.check(Clean.builder().build()), anomaly("no-final-read", "final read"));
    }
}
