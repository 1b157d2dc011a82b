package io.onlyonce.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutcomeTest {

    private static final IdempotencyKey KEY = new IdempotencyKey("POST /orders alice", "k-1");
    private static final Fingerprint SAME = Fingerprint.of("POST", "/orders");
    private static final Fingerprint OTHER = Fingerprint.of("POST", "/orders", "another body");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final StoredResponse CREATED = new StoredResponse(201, List.of(), "{\"id\":1}".getBytes());

    private static IdempotencyRecord running(Duration left) {
        return new IdempotencyRecord(KEY, RecordStatus.IN_PROGRESS, SAME, OwnerToken.random(), left, null);
    }

    @Test
    void aDifferentFingerprintIsAMismatchBeforeAnythingElse() {
        assertThat(Outcome.of(running(Duration.ofSeconds(5)), OTHER, LEASE)).isEqualTo(new Outcome.FingerprintMismatch());
        assertThat(Outcome.of(new IdempotencyRecord(KEY, RecordStatus.COMPLETED, SAME, OwnerToken.random(), Duration.ofHours(1), CREATED), OTHER, LEASE))
                .isEqualTo(new Outcome.FingerprintMismatch());
    }

    @Test
    void aCompletedRecordIsReplayedOrToldNotKept() {
        assertThat(Outcome.of(new IdempotencyRecord(KEY, RecordStatus.COMPLETED, SAME, OwnerToken.random(), Duration.ofHours(1), CREATED), SAME, LEASE))
                .isEqualTo(new Outcome.Replayed(CREATED));
        assertThat(Outcome.of(new IdempotencyRecord(KEY, RecordStatus.COMPLETED, SAME, OwnerToken.random(), Duration.ofHours(1), null), SAME, LEASE))
                .isEqualTo(new Outcome.ResponseNotKept());
    }

    @Test
    void aRecordInProgressIsRetriedWhenItsLeaseEndsRoundedUpToWholeSecondsAndAtLeastOne() {
        assertThat(Outcome.of(running(Duration.ofMillis(27_500)), SAME, LEASE))
                .isEqualTo(new Outcome.InProgress(Duration.ofSeconds(28), Duration.ofMillis(2_500)));
        assertThat(Outcome.of(running(Duration.ofMillis(20)), SAME, LEASE))
                .isEqualTo(new Outcome.InProgress(Duration.ofSeconds(1), Duration.ofMillis(29_980)));
        // a holder whose lease is longer than this request's: it has run for no time that the lease tells
        assertThat(Outcome.of(running(Duration.ofSeconds(50)), SAME, LEASE))
                .isEqualTo(new Outcome.InProgress(Duration.ofSeconds(50), Duration.ZERO));
    }
}
