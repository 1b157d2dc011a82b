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
