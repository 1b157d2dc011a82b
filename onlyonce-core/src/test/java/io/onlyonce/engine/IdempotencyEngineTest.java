package io.onlyonce.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class IdempotencyEngineTest {

    private final Clock clock = Clock.fixed(Instant.parse("2026-11-30T00:00:00Z"), ZoneOffset.UTC);
    private final IdempotencyKey key = new IdempotencyKey("alice", "k1");
    private final Fingerprint fp = Fingerprint.of("a");
    private final StoredResponse ok = StoredResponse.of(201, new byte[] {1, 2, 3});

    @Test
    void listenerSeesEveryOutcomeAndTimedStoreCalls() {
        List<String> events = new ArrayList<>();
        IdempotencyListener listener = new IdempotencyListener() {
            @Override
            public void onOutcome(IdempotencyKey k, Outcome outcome) {
                events.add("outcome:" + outcome.getClass().getSimpleName());
            }

            @Override
            public void onStoreCall(String operation, Duration elapsed) {
                events.add("call:" + operation);
            }
        };
        IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryIdempotencyStore(clock, 100))
                .clock(clock).listener(listener).build();
        engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(events).containsExactly("call:claim", "call:complete", "outcome:Executed", "call:claim", "outcome:Replayed");
    }

    @Test
    void inProgressSuggestsTheRestOfTheLeaseRoundedUp() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        store.claim(key, fp, clock.instant().minusMillis(2_500), Duration.ofSeconds(30));
        Outcome outcome = IdempotencyEngine.builder(store).clock(clock).build()
                .execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(outcome).isEqualTo(new Outcome.InProgress(Duration.ofSeconds(28)));
    }

    @Test
    void storeFailureAfterExecutionIsReportedNotHidden() {
        IdempotencyStore failingComplete = new IdempotencyStore() {
            private final InMemoryIdempotencyStore delegate = new InMemoryIdempotencyStore(clock, 100);

            @Override
            public ClaimResult claim(IdempotencyKey k, Fingerprint f, Instant now, Duration lease) {
                return delegate.claim(k, f, now, lease);
            }

            @Override
            public boolean complete(IdempotencyKey k, OwnerToken owner, StoredResponse response, Instant now, Duration retention) {
                throw new StoreUnavailableException("complete", new RuntimeException("connection reset"));
            }

            @Override
            public boolean release(IdempotencyKey k, OwnerToken owner, Instant now) {
                return delegate.release(k, owner, now);
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey k, Instant now) {
                return delegate.find(k, now);
            }
        };
        Outcome outcome = IdempotencyEngine.builder(failingComplete).clock(clock).build()
                .execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(outcome).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.NOT_RECORDED));
        assertThat(failingComplete.find(key, clock.instant())).isPresent();
    }

    @Test
    void keepingTheKeyOnExceptionIsConfigurable() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyConfig keep = IdempotencyConfig.custom().releaseOnException(false).build();
        try {
            engine.execute(key, fp, keep, () -> {
                throw new IllegalStateException("boom");
            });
        } catch (IllegalStateException expected) {
            // rethrown unchanged
        }
        assertThat(engine.execute(key, fp, keep, () -> ok)).isInstanceOf(Outcome.InProgress.class);
    }

    @Test
    void admittedExecutionIsFinishedExactlyOnceAndCanBeCompletedLater() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        Admission admission = engine.admit(key, fp, IdempotencyConfig.ofDefaults());
        assertThat(admission).isInstanceOf(Admission.Admitted.class);
        Execution execution = ((Admission.Admitted) admission).execution();
        assertThat(execution.isProtected()).isTrue();
        assertThat(engine.admit(key, fp, IdempotencyConfig.ofDefaults()))
                .isEqualTo(new Admission.Decided(new Outcome.InProgress(Duration.ofSeconds(30))));

        assertThat(execution.complete(ok)).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.STORED));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> execution.complete(ok))
                .isInstanceOf(IllegalStateException.class);
        assertThat(engine.admit(key, fp, IdempotencyConfig.ofDefaults()))
                .isEqualTo(new Admission.Decided(new Outcome.Replayed(ok)));
    }

    @Test
    void aResponseTheStoreCannotEncodeFreesTheKey() {
        InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyStore rejectsLargeHeaders = new IdempotencyStore() {
            @Override
            public ClaimResult claim(IdempotencyKey k, Fingerprint f, Instant now, Duration lease) {
                return memory.claim(k, f, now, lease);
            }

            @Override
            public boolean complete(IdempotencyKey k, OwnerToken owner, StoredResponse response, Instant now, Duration retention) {
                io.onlyonce.store.StoredResponseCodec.encode(response);
                return memory.complete(k, owner, response, now, retention);
            }

            @Override
            public boolean release(IdempotencyKey k, OwnerToken owner, Instant now) {
                return memory.release(k, owner, now);
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey k, Instant now) {
                return memory.find(k, now);
            }
        };
        StoredResponse huge = new StoredResponse(200,
                java.util.List.of(new StoredResponse.Header("X-Huge", "x".repeat(70_000))), new byte[0]);
        Outcome outcome = IdempotencyEngine.builder(rejectsLargeHeaders).clock(clock).build()
                .execute(key, fp, IdempotencyConfig.ofDefaults(), () -> huge);
        assertThat(outcome).isEqualTo(new Outcome.Executed(huge, Outcome.Recording.NOT_RECORDED));
        assertThat(memory.find(key, clock.instant())).as("released, so a retry executes").isEmpty();
    }
}
