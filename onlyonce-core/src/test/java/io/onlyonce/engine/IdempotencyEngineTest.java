package io.onlyonce.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class IdempotencyEngineTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-30T00:00:00Z"));
    private final InstantSource clock = now::get;
    private final IdempotencyKey key = new IdempotencyKey("alice", "k1");
    private final Fingerprint fp = Fingerprint.of("a");
    private final StoredResponse ok = StoredResponse.of(201, new byte[] {1, 2, 3});

    /** A store that runs on a memory store but whose complete can be made to fail. */
    private static class FlakyStore implements IdempotencyStore {
        final InMemoryIdempotencyStore delegate;
        final List<@Nullable StoredResponse> completions = new ArrayList<>();
        RuntimeException failCompleteWithResponse;
        RuntimeException failEveryComplete;

        FlakyStore(InstantSource clock) {
            delegate = new InMemoryIdempotencyStore(clock, 100);
        }

        @Override
        public ClaimResult claim(IdempotencyKey k, Fingerprint f, Duration lease) {
            return delegate.claim(k, f, lease);
        }

        @Override
        public boolean complete(IdempotencyKey k, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
            completions.add(response);
            if (failEveryComplete != null) {
                throw failEveryComplete;
            }
            if (response != null && failCompleteWithResponse != null) {
                throw failCompleteWithResponse;
            }
            return delegate.complete(k, owner, response, retention);
        }

        @Override
        public boolean release(IdempotencyKey k, OwnerToken owner) {
            return delegate.release(k, owner);
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey k) {
            return delegate.find(k);
        }
    }

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
                .listener(listener).build();
        engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(events).containsExactly("call:claim", "call:complete", "outcome:Executed", "call:claim", "outcome:Replayed");
    }

    @Test
    void aFailingListenerNeitherChangesTheOutcomeNorStrandsTheKey() {
        IdempotencyListener broken = new IdempotencyListener() {
            @Override
            public void onOutcome(IdempotencyKey k, Outcome outcome) {
                throw new IllegalStateException("metrics backend down");
            }

            @Override
            public void onStoreCall(String operation, Duration elapsed) {
                throw new IllegalStateException("metrics backend down");
            }
        };
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).listener(broken).build();
        Admission admission = engine.admit(key, fp, IdempotencyConfig.ofDefaults());
        assertThat(admission).isInstanceOf(Admission.Admitted.class);
        assertThat(((Admission.Admitted) admission).execution().complete(ok).recording()).isEqualTo(Outcome.Recording.STORED);
        assertThat(engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok)).isEqualTo(new Outcome.Replayed(ok));
    }

    @Test
    void inProgressSuggestsTheRestOfTheLeaseRoundedUpOnTheStoresClockAndSaysHowLongTheHolderRan() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        store.claim(key, fp, Duration.ofSeconds(30));
        now.updateAndGet(t -> t.plusMillis(2_500));
        Outcome outcome = IdempotencyEngine.builder(store).build()
                .execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(outcome).isEqualTo(new Outcome.InProgress(Duration.ofSeconds(28), Duration.ofMillis(2_500)));
    }

    @Test
    void aStoreThatIsDownAfterTheWorkRanLeavesTheKeyTakenUntilTheLeaseEnds() {
        FlakyStore store = new FlakyStore(clock);
        store.failEveryComplete = new StoreUnavailableException("complete", new RuntimeException("connection reset"));
        Outcome outcome = IdempotencyEngine.builder(store).build().execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(outcome).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.NOT_RECORDED));
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::status).isEqualTo(RecordStatus.IN_PROGRESS);
    }

    @Test
    void anUnreachableStoreAtCompletionIsNotRecordedAndNotRetriedWithoutTheResponse() {
        FlakyStore store = new FlakyStore(clock);
        store.failCompleteWithResponse = new StoreUnavailableException("complete", new RuntimeException("timed out"));
        List<String> errors = new ArrayList<>();
        IdempotencyEngine engine = IdempotencyEngine.builder(store).listener(new IdempotencyListener() {
            @Override
            public void onStoreError(String operation, StoreUnavailableException error) {
                errors.add(operation);
            }
        }).build();
        Outcome outcome = engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(outcome).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.NOT_RECORDED));
        assertThat(store.completions).as("no completion without the response is attempted").containsExactly(ok);
        assertThat(errors).containsExactly("complete");
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::status).isEqualTo(RecordStatus.IN_PROGRESS);
    }

    @Test
    void aSuccessTheStoreCannotKeepIsCompletedWithoutItsResponseNeverReleased() {
        FlakyStore store = new FlakyStore(clock);
        store.failCompleteWithResponse = new IllegalArgumentException("value too large for this server");
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        AtomicInteger runs = new AtomicInteger();
        Outcome first = engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> {
            runs.incrementAndGet();
            return ok;
        });
        assertThat(first).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.STORED_WITHOUT_RESPONSE));
        assertThat(store.completions).containsExactly(ok, null);

        Outcome retry = engine.execute(key, fp, IdempotencyConfig.ofDefaults(), () -> {
            runs.incrementAndGet();
            return ok;
        });
        assertThat(retry).isEqualTo(new Outcome.ResponseNotKept());
        assertThat(runs).hasValue(1);
        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.hasResponse()).isFalse();
    }

    @Test
    void completeWithoutResponseKeepsSuccessesAndReleasesFailures() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        Execution success = ((Admission.Admitted) engine.admit(key, fp, IdempotencyConfig.ofDefaults())).execution();
        assertThat(success.completeWithoutResponse(201))
                .isEqualTo(new Outcome.Executed(201, null, Outcome.Recording.STORED_WITHOUT_RESPONSE));
        assertThat(engine.admit(key, fp, IdempotencyConfig.ofDefaults()))
                .isEqualTo(new Admission.Decided(new Outcome.ResponseNotKept()));
        assertThat(engine.admit(key, Fingerprint.of("other"), IdempotencyConfig.ofDefaults()))
                .as("a different payload is still a mismatch")
                .isEqualTo(new Admission.Decided(new Outcome.FingerprintMismatch()));

        IdempotencyKey other = new IdempotencyKey("alice", "k2");
        Execution failure = ((Admission.Admitted) engine.admit(other, fp, IdempotencyConfig.ofDefaults())).execution();
        assertThat(failure.completeWithoutResponse(503).recording()).isEqualTo(Outcome.Recording.RELEASED);
        assertThat(store.find(other)).isEmpty();
    }

    @Test
    void keepingTheKeyOnExceptionIsConfigurable() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        IdempotencyConfig keep = IdempotencyConfig.custom().releaseOnException(false).build();
        assertThatThrownBy(() -> engine.execute(key, fp, keep, () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(engine.execute(key, fp, keep, () -> ok)).isInstanceOf(Outcome.InProgress.class);
    }

    @Test
    void admittedExecutionIsFinishedExactlyOnceAndCanBeCompletedLater() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        Admission admission = engine.admit(key, fp, IdempotencyConfig.ofDefaults());
        assertThat(admission).isInstanceOf(Admission.Admitted.class);
        Execution execution = ((Admission.Admitted) admission).execution();
        assertThat(execution.isProtected()).isTrue();
        assertThat(engine.admit(key, fp, IdempotencyConfig.ofDefaults()))
                .isEqualTo(new Admission.Decided(new Outcome.InProgress(Duration.ofSeconds(30), Duration.ZERO)));

        assertThat(execution.complete(ok)).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.STORED));
        assertThatThrownBy(() -> execution.complete(ok)).isInstanceOf(IllegalStateException.class);
        assertThat(engine.admit(key, fp, IdempotencyConfig.ofDefaults()))
                .isEqualTo(new Admission.Decided(new Outcome.Replayed(ok)));
    }

    @Test
    void anAbandonedExecutionFreesItsKeyEvenWhereExceptionsKeepIt() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        IdempotencyConfig keep = IdempotencyConfig.custom().releaseOnException(false).build();
        AsyncAdmission admission = engine.admitAsync(key, fp, keep).toCompletableFuture().join();
        AsyncExecution execution = ((AsyncAdmission.Admitted) admission).execution();

        assertThat(execution.abandon().toCompletableFuture().join()).isTrue();
        assertThat(store.find(key)).as("nothing ran: a retry runs at once").isEmpty();
        assertThatThrownBy(execution::abandon).as("finished exactly once").isInstanceOf(IllegalStateException.class);
        assertThat(engine.execute(key, fp, keep, () -> ok)).isEqualTo(new Outcome.Executed(ok, Outcome.Recording.STORED));
    }

    @Test
    void theMemoryStoreRefusesNewClaimsWhenFullInsteadOfEvictingAnAnswer() {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 2);
        IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
        for (String name : List.of("a", "b")) {
            assertThat(engine.execute(new IdempotencyKey("alice", name), fp, IdempotencyConfig.ofDefaults(), () -> ok))
                    .isEqualTo(new Outcome.Executed(ok, Outcome.Recording.STORED));
        }
        Outcome third = engine.execute(new IdempotencyKey("alice", "c"), fp, IdempotencyConfig.ofDefaults(), () -> ok);
        assertThat(third).isInstanceOf(Outcome.StoreUnavailable.class);
        assertThat(engine.execute(new IdempotencyKey("alice", "a"), fp, IdempotencyConfig.ofDefaults(), () -> ok))
                .isEqualTo(new Outcome.Replayed(ok));
        now.updateAndGet(t -> t.plus(IdempotencyConfig.DEFAULT_RETENTION));
        assertThat(engine.execute(new IdempotencyKey("alice", "c"), fp, IdempotencyConfig.ofDefaults(), () -> ok))
                .as("room again once the retention of the others ended")
                .isEqualTo(new Outcome.Executed(ok, Outcome.Recording.STORED));
    }
}
