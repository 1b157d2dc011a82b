package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.Outcome;
import io.onlyonce.engine.StoreFailurePolicy;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rules every {@link IdempotencyStore} keeps. A store's test extends this class, returns a
 * store on the real server from {@link #createStore()} (in a namespace of its own: a key prefix,
 * a fresh database) and, where a server exists, a store pointed at a dead one from
 * {@link #createUnreachableStore()}.
 */
public abstract class AbstractIdempotencyStoreContractTest {

    /** Threads in the concurrency tests. */
    protected static final int THREADS = 64;
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration RETENTION = Duration.ofHours(24);

    protected IdempotencyStore store;
    protected MutableClock clock;

    /** A store on the real server, isolated from every other test. Called before each test. */
    protected abstract IdempotencyStore createStore() throws Exception;

    /** A store whose server is stopped or unreachable; empty where there is no server. */
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        return Optional.empty();
    }

    /** Releases what {@link #createStore()} made. Called after each test. */
    protected void cleanUp() throws Exception {
    }

    @BeforeEach
    void setUpContract() throws Exception {
        clock = MutableClock.startingNow();
        store = createStore();
    }

    @AfterEach
    void tearDownContract() throws Exception {
        cleanUp();
    }

    protected static IdempotencyKey key() {
        return new IdempotencyKey("user-1:POST /orders", "key-" + UUID.randomUUID());
    }

    protected static Fingerprint fingerprint(String body) {
        return Fingerprint.of("POST", "/orders", body);
    }

    /** A response with binary body bytes 0..255 and two headers. */
    protected static StoredResponse response() {
        byte[] body = new byte[256];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        return new StoredResponse(201, List.of(
                new StoredResponse.Header("Location", "/orders/42"),
                new StoredResponse.Header("Content-Type", "application/json")), body);
    }

    private OwnerToken claimed(IdempotencyKey key, Fingerprint fp, Instant now) {
        ClaimResult result = store.claim(key, fp, now, LEASE);
        assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
        return ((ClaimResult.Claimed) result).owner();
    }

    private IdempotencyRecord existing(ClaimResult result) {
        assertThat(result).isInstanceOf(ClaimResult.Existing.class);
        return ((ClaimResult.Existing) result).record();
    }

    @Test
    void firstClaimWinsAndLeavesAnInProgressRecord() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);

        IdempotencyRecord record = store.find(key, now).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(record.owner()).isEqualTo(owner);
        assertThat(record.fingerprint()).isEqualTo(fingerprint("a"));
        assertThat(record.expiresAt()).isEqualTo(now.plus(LEASE));
        assertThat(record.response()).isNull();
    }

    @Test
    void secondClaimSeesTheRunningRecordAndWritesNothing() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);

        IdempotencyRecord seen = existing(store.claim(key, fingerprint("b"), now.plusSeconds(1), LEASE));
        assertThat(seen.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(seen.owner()).isEqualTo(owner);
        assertThat(seen.fingerprint()).isEqualTo(fingerprint("a"));
        assertThat(seen.expiresAt()).isEqualTo(now.plus(LEASE));
    }

    @Test
    void manyThreadsClaimOneKeyAndExactlyOneWins() throws Exception {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        List<ClaimResult> results = Race.run(THREADS, () -> store.claim(key, fingerprint("a"), now, LEASE));

        List<OwnerToken> winners = results.stream()
                .filter(ClaimResult.Claimed.class::isInstance)
                .map(r -> ((ClaimResult.Claimed) r).owner())
                .toList();
        assertThat(winners).hasSize(1);
        assertThat(results.stream().filter(ClaimResult.Existing.class::isInstance).map(r -> ((ClaimResult.Existing) r).record()))
                .hasSize(THREADS - 1)
                .allSatisfy(r -> {
                    assertThat(r.status()).isEqualTo(RecordStatus.IN_PROGRESS);
                    assertThat(r.owner()).isEqualTo(winners.get(0));
                });
    }

    @Test
    void completedRecordIsReplayedWithIdenticalBytes() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);
        assertThat(store.complete(key, owner, response(), now.plusMillis(5), RETENTION)).isTrue();

        IdempotencyRecord record = existing(store.claim(key, fingerprint("a"), now.plusSeconds(60), LEASE));
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.response()).isEqualTo(response());
        assertThat(record.response().body()).containsExactly(response().body());
        assertThat(record.response().headers()).containsExactlyElementsOf(response().headers());
        assertThat(record.expiresAt()).isEqualTo(now.plusMillis(5).plus(RETENTION));
    }

    @Test
    void emptyBodyAndNoHeadersRoundTrip() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);
        StoredResponse empty = StoredResponse.of(204, new byte[0]);
        assertThat(store.complete(key, owner, empty, now, RETENTION)).isTrue();
        assertThat(store.find(key, now).orElseThrow().response()).isEqualTo(empty);
    }

    @Test
    void differentFingerprintIsReportedByTheEngine() {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyKey key = key();
        IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        Outcome first = engine.execute(key, fingerprint("a"), config, () -> response());
        Outcome other = engine.execute(key, fingerprint("b"), config, () -> {
            throw new AssertionError("must not run");
        });
        Outcome again = engine.execute(key, fingerprint("a"), config, () -> {
            throw new AssertionError("must not run");
        });

        assertThat(first).isEqualTo(new Outcome.Executed(response(), Outcome.Recording.STORED));
        assertThat(other).isInstanceOf(Outcome.FingerprintMismatch.class);
        assertThat(again).isEqualTo(new Outcome.Replayed(response()));
    }

    @Test
    void mismatchIsReportedBeforeInProgress() {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyKey key = key();
        claimed(key, fingerprint("a"), clock.instant());
        Outcome other = engine.execute(key, fingerprint("b"), IdempotencyConfig.ofDefaults(), () -> response());
        Outcome same = engine.execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> response());
        assertThat(other).isInstanceOf(Outcome.FingerprintMismatch.class);
        assertThat(same).isEqualTo(new Outcome.InProgress(LEASE));
    }

    @Test
    void leasePassedAnotherClaimsAndTheLateHolderIsRefused() {
        IdempotencyKey key = key();
        Instant start = clock.instant();
        OwnerToken first = claimed(key, fingerprint("a"), start);

        Instant later = start.plus(LEASE);
        OwnerToken second = claimed(key, fingerprint("a"), later);
        assertThat(second).isNotEqualTo(first);

        assertThat(store.complete(key, first, response(), later.plusMillis(1), RETENTION)).isFalse();
        assertThat(store.release(key, first, later.plusMillis(1))).isFalse();
        IdempotencyRecord record = store.find(key, later.plusMillis(1)).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(record.owner()).isEqualTo(second);

        assertThat(store.complete(key, second, response(), later.plusMillis(2), RETENTION)).isTrue();
        assertThat(store.find(key, later.plusMillis(3)).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void leaseStillRunningOneMillisecondBeforeItsEnd() {
        IdempotencyKey key = key();
        Instant start = clock.instant();
        claimed(key, fingerprint("a"), start);
        assertThat(store.claim(key, fingerprint("a"), start.plus(LEASE).minusMillis(1), LEASE))
                .isInstanceOf(ClaimResult.Existing.class);
    }

    @Test
    void holderPastItsLeaseCannotCompleteEvenIfNobodyTookOver() {
        IdempotencyKey key = key();
        Instant start = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), start);
        assertThat(store.complete(key, owner, response(), start.plus(LEASE), RETENTION)).isFalse();
        assertThat(store.find(key, start.plus(LEASE))).isEmpty();
    }

    @Test
    void manyThreadsTakeOverAnExpiredLeaseAndExactlyOneWins() throws Exception {
        IdempotencyKey key = key();
        Instant start = clock.instant();
        claimed(key, fingerprint("a"), start);
        Instant later = start.plus(LEASE).plusSeconds(1);
        List<ClaimResult> results = Race.run(THREADS, () -> store.claim(key, fingerprint("a"), later, LEASE));
        assertThat(results).filteredOn(ClaimResult.Claimed.class::isInstance).hasSize(1);
    }

    @Test
    void afterRetentionTheKeyIsNewAgain() {
        IdempotencyKey key = key();
        Instant start = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), start);
        Duration retention = Duration.ofSeconds(10);
        assertThat(store.complete(key, owner, response(), start, retention)).isTrue();

        assertThat(store.claim(key, fingerprint("a"), start.plus(retention).minusMillis(1), LEASE))
                .isInstanceOf(ClaimResult.Existing.class);
        assertThat(store.find(key, start.plus(retention))).isEmpty();
        OwnerToken again = claimed(key, fingerprint("b"), start.plus(retention));
        assertThat(again).isNotEqualTo(owner);
        assertThat(store.find(key, start.plus(retention)).orElseThrow().fingerprint()).isEqualTo(fingerprint("b"));
    }

    @Test
    void releaseLetsTheNextRequestExecute() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);
        assertThat(store.release(key, owner, now)).isTrue();
        assertThat(store.find(key, now)).isEmpty();
        claimed(key, fingerprint("a"), now);
    }

    @Test
    void onlyTheHolderMayCompleteOrRelease() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);
        OwnerToken stranger = OwnerToken.random();
        assertThat(store.complete(key, stranger, response(), now, RETENTION)).isFalse();
        assertThat(store.release(key, stranger, now)).isFalse();
        assertThat(store.find(key, now).orElseThrow().owner()).isEqualTo(owner);
    }

    @Test
    void completedRecordCannotBeReleasedOrCompletedAgain() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        OwnerToken owner = claimed(key, fingerprint("a"), now);
        assertThat(store.complete(key, owner, response(), now, RETENTION)).isTrue();
        assertThat(store.complete(key, owner, StoredResponse.of(500, new byte[0]), now, RETENTION)).isFalse();
        assertThat(store.release(key, owner, now)).isFalse();
        assertThat(store.find(key, now).orElseThrow().response()).isEqualTo(response());
    }

    @Test
    void absentKeyCannotBeCompletedOrReleased() {
        IdempotencyKey key = key();
        Instant now = clock.instant();
        assertThat(store.complete(key, OwnerToken.random(), response(), now, RETENTION)).isFalse();
        assertThat(store.release(key, OwnerToken.random(), now)).isFalse();
        assertThat(store.find(key, now)).isEmpty();
    }

    @Test
    void scopesKeepEqualNamesApart() {
        Instant now = clock.instant();
        String name = "shared-" + UUID.randomUUID();
        IdempotencyKey alice = new IdempotencyKey("alice:POST /orders", name);
        IdempotencyKey bob = new IdempotencyKey("bob:POST /orders", name);
        OwnerToken aliceOwner = claimed(alice, fingerprint("a"), now);
        assertThat(store.complete(alice, aliceOwner, response(), now, RETENTION)).isTrue();

        claimed(bob, fingerprint("a"), now);
        assertThat(store.find(bob, now).orElseThrow().status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(store.find(alice, now).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void scopeAndNameBoundariesDoNotCollide() {
        Instant now = clock.instant();
        String id = UUID.randomUUID().toString();
        IdempotencyKey one = new IdempotencyKey("a:" + id, "b");
        IdempotencyKey two = new IdempotencyKey("a", id + ":b");
        claimed(one, fingerprint("a"), now);
        claimed(two, fingerprint("a"), now);
    }

    @Test
    void everyVisibleAsciiCharacterAndUnicodeScopesAreKeys() {
        Instant now = clock.instant();
        StringBuilder visible = new StringBuilder();
        for (char c = 0x21; c <= 0x7E; c++) {
            visible.append(c);
        }
        String longest = (visible.toString() + visible + visible).substring(0, IdempotencyKey.MAX_NAME_LENGTH);
        IdempotencyKey key = new IdempotencyKey("用户-" + UUID.randomUUID() + ":POST /订单/{id}", longest);
        OwnerToken owner = claimed(key, fingerprint("a"), now);
        assertThat(store.complete(key, owner, response(), now, RETENTION)).isTrue();
        assertThat(store.find(key, now).orElseThrow().key()).isEqualTo(key);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "has space", "tab\there", "new\nline", "nul\u0000", "naïve", "订单", "\u007f"})
    void badKeysAreRejectedBeforeAnyStoreCall(String bad) {
        AtomicInteger storeCalls = new AtomicInteger();
        assertThatThrownBy(() -> {
            IdempotencyKey key = new IdempotencyKey("scope", bad);
            storeCalls.incrementAndGet();
            store.claim(key, fingerprint("a"), clock.instant(), LEASE);
        }).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThat(storeCalls).hasValue(0);
    }

    @Test
    void keysLongerThan255CharactersAreRejected() {
        assertThatThrownBy(() -> new IdempotencyKey("scope", "k".repeat(256)))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThat(new IdempotencyKey("scope", "k".repeat(255)).name()).hasSize(255);
    }

    @Test
    void engineReleasesOnExceptionSoTheRetryExecutes() {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyKey key = key();
        IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        assertThatThrownBy(() -> engine.execute(key, fingerprint("a"), config, () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(store.find(key, clock.instant())).isEmpty();

        Outcome retry = engine.execute(key, fingerprint("a"), config, () -> response());
        assertThat(retry).isEqualTo(new Outcome.Executed(response(), Outcome.Recording.STORED));
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 503, 408, 409, 425, 429})
    void engineReleasesServerErrorsAndTransientStatuses(int status) {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyKey key = key();
        StoredResponse failed = StoredResponse.of(status, "failed".getBytes(StandardCharsets.UTF_8));
        Outcome outcome = engine.execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> failed);
        assertThat(outcome).isEqualTo(new Outcome.Executed(failed, Outcome.Recording.RELEASED));
        assertThat(store.find(key, clock.instant())).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 302, 400, 404, 422})
    void engineStoresDeterministicAnswers(int status) {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyKey key = key();
        StoredResponse answer = StoredResponse.of(status, ("answer " + status).getBytes(StandardCharsets.UTF_8));
        engine.execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> answer);
        Outcome replay = engine.execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> {
            throw new AssertionError("must not run");
        });
        assertThat(replay).isEqualTo(new Outcome.Replayed(answer));
    }

    @Test
    void engineRunsTheActionOnceUnderManyConcurrentRequests() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(clock).build();
        IdempotencyKey key = key();
        AtomicInteger executions = new AtomicInteger();
        List<Outcome> outcomes = Race.run(THREADS, () -> engine.execute(key, fingerprint("a"),
                IdempotencyConfig.ofDefaults(), () -> {
                    executions.incrementAndGet();
                    return response();
                }));
        assertThat(executions).hasValue(1);
        assertThat(outcomes).filteredOn(Outcome.Executed.class::isInstance).hasSize(1);
        assertThat(outcomes).allSatisfy(o -> assertThat(o).isInstanceOfAny(
                Outcome.Executed.class, Outcome.Replayed.class, Outcome.InProgress.class));
    }

    @Test
    void unreachableServerIsAClearExceptionNeverASilentSuccess() throws Exception {
        Optional<IdempotencyStore> dead = createUnreachableStore();
        assumeTrue(dead.isPresent(), "this store has no server");
        IdempotencyStore down = dead.get();
        IdempotencyKey key = key();
        Instant now = clock.instant();
        assertThatThrownBy(() -> down.claim(key, fingerprint("a"), now, LEASE)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.complete(key, OwnerToken.random(), response(), now, RETENTION))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.release(key, OwnerToken.random(), now)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.find(key, now)).isInstanceOf(StoreUnavailableException.class);

        AtomicInteger executions = new AtomicInteger();
        IdempotencyEngine engine = IdempotencyEngine.builder(down).clock(clock).build();
        Outcome strict = engine.execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> {
            executions.incrementAndGet();
            return response();
        });
        assertThat(strict).isInstanceOf(Outcome.StoreUnavailable.class);
        assertThat(executions).hasValue(0);
        Outcome permissive = engine.execute(key, fingerprint("a"),
                IdempotencyConfig.custom().storeFailurePolicy(StoreFailurePolicy.PERMISSIVE).build(), () -> {
                    executions.incrementAndGet();
                    return response();
                });
        assertThat(permissive).isEqualTo(new Outcome.Executed(response(), Outcome.Recording.UNPROTECTED));
        assertThat(executions).hasValue(1);
    }
}
