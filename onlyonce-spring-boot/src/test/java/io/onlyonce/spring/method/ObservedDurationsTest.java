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

    @Test
    void beforeAnyExecutionOneSecondIsSuggestedNotTheRestOfTheLease() {
        assertThat(durations.retryAfter("POST /refunds", new Outcome.InProgress(Duration.ofSeconds(30), Duration.ZERO)))
                .isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theUsualDurationLessWhatTheHolderRanIsSuggestedRoundedUpBetweenOneSecondAndTheLeaseLeft() {
        durations.record("e", Duration.ofSeconds(8));
        assertThat(durations.retryAfter("e", new Outcome.InProgress(Duration.ofSeconds(27), Duration.ofMillis(2_500))))
                .isEqualTo(Duration.ofSeconds(6));
        assertThat(durations.retryAfter("e", new Outcome.InProgress(Duration.ofSeconds(3), Duration.ofSeconds(1))))
                .as("never past the lease").isEqualTo(Duration.ofSeconds(3));
        assertThat(durations.retryAfter("e", new Outcome.InProgress(Duration.ofSeconds(20), Duration.ofSeconds(10))))
                .as("overdue: at least a second").isEqualTo(Duration.ofSeconds(1));
        assertThat(durations.retryAfter("other", new Outcome.InProgress(Duration.ofSeconds(20), Duration.ZERO)))
                .as("per endpoint").isEqualTo(Duration.ofSeconds(1));
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
