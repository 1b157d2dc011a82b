package io.onlyonce.spring.method;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Execution;
import io.onlyonce.engine.Outcome;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ObservedDurationsTest {

    private final AtomicLong nanos = new AtomicLong();
    private final ObservedDurations durations = new ObservedDurations(nanos::get);

    /** The wait suggested for {@code endpoint}'s holder that has run {@code running} with {@code leaseLeft} of its lease left. */
    private Duration waitFor(String endpoint, Duration leaseLeft, Duration running) {
        return durations.retryAfter(endpoint, new Outcome.InProgress(leaseLeft, running));
    }

    @Test
    void beforeAnyExecutionOneSecondIsSuggestedNotTheRestOfTheLease() {
        assertThat(waitFor("POST /refunds", Duration.ofSeconds(30), Duration.ZERO)).isEqualTo(Duration.ofSeconds(1));
        assertThat(waitFor("POST /refunds", Duration.ofSeconds(30), Duration.ofMillis(900))).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theUsualDurationLessWhatTheHolderRanIsSuggestedRoundedUpBetweenOneSecondAndTheLeaseLeft() {
        durations.record("e", Duration.ofSeconds(8));
        assertThat(waitFor("e", Duration.ofSeconds(27), Duration.ofMillis(2_500))).isEqualTo(Duration.ofSeconds(6));
        assertThat(waitFor("e", Duration.ofSeconds(3), Duration.ofSeconds(1))).as("never past the lease")
                .isEqualTo(Duration.ofSeconds(3));
        assertThat(waitFor("e", Duration.ofSeconds(22), Duration.ofMillis(8_900))).as("just past the usual duration: a second")
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(waitFor("other", Duration.ofSeconds(20), Duration.ZERO)).as("per endpoint").isEqualTo(Duration.ofSeconds(1));
    }

    /** A 30 s lease held for 10 s by a request that usually takes 100 ms: stuck, or its client went away. */
    @Test
    void aHolderPastItsUsualDurationIsAnsweredWithTheTimeItsLeaseHasLeft() {
        durations.record("POST /orders", Duration.ofMillis(100));
        assertThat(waitFor("POST /orders", Duration.ofSeconds(20), Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(20));
        assertThat(waitFor("POST /orders", Duration.ofSeconds(29), Duration.ofMillis(1_100)))
                .as("from a second past the usual duration").isEqualTo(Duration.ofSeconds(29));
        assertThat(waitFor("POST /orders", Duration.ofSeconds(30), Duration.ofMillis(50))).as("still running as usual")
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(waitFor("POST /refunds", Duration.ofSeconds(25), Duration.ofSeconds(5)))
                .as("never seen complete, held for more than a second").isEqualTo(Duration.ofSeconds(25));
    }

    @Test
    void theMeanFollowsNewExecutionsOneInFive() {
        durations.record("e", Duration.ofMillis(100));
        durations.record("e", Duration.ofMillis(600));
        assertThat(durations.usual("e")).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aTimedExecutionCountsFromItsAdmissionToItsEnd() {
        Execution timed = durations.timed("e", new Execution() {
            @Override
            public boolean isProtected() {
                return true;
            }

            @Override
            public Outcome.Executed complete(StoredResponse response) {
                return new Outcome.Executed(response, Outcome.Recording.STORED);
            }

            @Override
            public Outcome.Executed completeWithoutResponse(int status) {
                return new Outcome.Executed(status, null, Outcome.Recording.STORED_WITHOUT_RESPONSE);
            }

            @Override
            public void fail(Throwable failure) {
            }
        });
        nanos.addAndGet(Duration.ofMillis(1_500).toNanos());
        timed.complete(StoredResponse.of(200, new byte[0]));
        assertThat(durations.usual("e")).isEqualTo(Duration.ofMillis(1_500));
    }
}
