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
import java.util.ArrayList;
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
 *
 * <p>Time is the store's: leases and retentions end on the server's clock. Tests that need time to
 * pass use short real durations and {@link #elapse}, which sleeps; a store on an injected clock (the
 * in-memory one) moves that clock instead.
 */
public abstract class AbstractIdempotencyStoreContractTest {

    /** Threads in the concurrency tests. */
    protected static final int THREADS = 64;
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration RETENTION = Duration.ofHours(24);
    /** A lease or retention short enough to let pass in a test. */
    protected static final Duration SHORT = Duration.ofMillis(400);
    /** What a store may take between writing a record and reading its time left back. */
    protected static final Duration SLACK = Duration.ofSeconds(5);

    protected IdempotencyStore store;
    protected MutableClock clock;

    /** A store on the real server, isolated from every other test. Called before each test. */
    protected abstract IdempotencyStore createStore() throws Exception;

    /**
     * A second client of the same data as {@link #createStore()}'s, configured as another instance
     * of the application would be (another connection, another session time zone); the in-memory
     * store, which no other instance can share, returns the same store.
     */
    protected IdempotencyStore createSecondClient() throws Exception {
        return store;
    }

    /** A store whose server is stopped or unreachable; empty where there is no server. */
    protected Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        return Optional.empty();
    }

    /** Releases what {@link #createStore()} made. Called after each test. */
    protected void cleanUp() throws Exception {
    }

    /** Lets {@code duration} pass on the store's clock: sleeps, unless the store runs on {@link #clock}. */
    protected void elapse(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
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

    protected OwnerToken claimed(IdempotencyKey key, Fingerprint fp, Duration lease) {
        return claimed(store, key, fp, lease);
    }

    protected static OwnerToken claimed(IdempotencyStore on, IdempotencyKey key, Fingerprint fp, Duration lease) {
        ClaimResult result = on.claim(key, fp, lease);
        assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
        return ((ClaimResult.Claimed) result).owner();
    }

    private static IdempotencyRecord existing(ClaimResult result) {
        assertThat(result).isInstanceOf(ClaimResult.Existing.class);
        return ((ClaimResult.Existing) result).record();
    }

    private static void assertExpiresIn(IdempotencyRecord record, Duration expected) {
        assertThat(record.expiresIn()).isLessThanOrEqualTo(expected).isGreaterThan(expected.minus(SLACK));
    }

    private IdempotencyEngine engine() {
        return IdempotencyEngine.builder(store).build();
    }

    @Test
    void firstClaimWinsAndLeavesAnInProgressRecord() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);

        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.key()).isEqualTo(key);
        assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(record.owner()).isEqualTo(owner);
        assertThat(record.fingerprint()).isEqualTo(fingerprint("a"));
        assertExpiresIn(record, LEASE);
        assertThat(record.response()).isNull();
    }

    @Test
    void secondClaimSeesTheRunningRecordAndWritesNothing() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);

        IdempotencyRecord seen = existing(store.claim(key, fingerprint("b"), LEASE));
        assertThat(seen.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(seen.owner()).isEqualTo(owner);
        assertThat(seen.fingerprint()).isEqualTo(fingerprint("a"));
        assertExpiresIn(seen, LEASE);
    }

    @Test
    void manyThreadsClaimOneKeyAndExactlyOneWins() throws Exception {
        IdempotencyKey key = key();
        List<ClaimResult> results = Race.run(THREADS, () -> store.claim(key, fingerprint("a"), LEASE));

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
    void manyThreadsOnManyFreshKeysEachKeyClaimedOnce() throws Exception {
        List<IdempotencyKey> keys = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            keys.add(key());
        }
        AtomicInteger winners = new AtomicInteger();
        for (IdempotencyKey key : keys) {
            List<ClaimResult> results = Race.run(8, () -> store.claim(key, fingerprint("a"), LEASE));
            long claimed = results.stream().filter(ClaimResult.Claimed.class::isInstance).count();
            assertThat(claimed).as("claims of %s", key.name()).isEqualTo(1);
            winners.addAndGet((int) claimed);
        }
        assertThat(winners).hasValue(keys.size());
    }

    @Test
    void completedRecordIsReplayedWithIdenticalBytes() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();

        IdempotencyRecord record = existing(store.claim(key, fingerprint("a"), LEASE));
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.owner()).isEqualTo(owner);
        assertThat(record.response()).isEqualTo(response());
        assertThat(record.response().body()).containsExactly(response().body());
        assertThat(record.response().headers()).containsExactlyElementsOf(response().headers());
        assertExpiresIn(record, RETENTION);
    }

    @Test
    void emptyBodyAndNoHeadersRoundTrip() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        StoredResponse empty = StoredResponse.of(204, new byte[0]);
        assertThat(store.complete(key, owner, empty, RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().response()).isEqualTo(empty);
    }

    @Test
    void longAndManyHeadersRoundTrip() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        List<StoredResponse.Header> headers = new ArrayList<>();
        headers.add(new StoredResponse.Header("Link", "<https://api.example.com/orders?page=" + "9".repeat(70_000) + ">; rel=\"next\""));
        for (int i = 0; i < 2_000; i++) {
            headers.add(new StoredResponse.Header("X-Item", "item " + i + "\tnaïve 订单 ✓ 😀"));
        }
        headers.add(new StoredResponse.Header("X-Empty", ""));
        headers.add(new StoredResponse.Header("X-Padded", "  two spaces: then a colon  "));
        StoredResponse response = new StoredResponse(201, headers, "{\"id\":42}".getBytes(StandardCharsets.UTF_8));
        assertThat(store.complete(key, owner, response, RETENTION)).isTrue();
        StoredResponse back = store.find(key).orElseThrow().response();
        assertThat(back).isEqualTo(response);
        assertThat(back.headers()).hasSize(2_003);
    }

    @Test
    void completedWithoutResponseStaysTakenAndSaysSo() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, owner, null, RETENTION)).isTrue();

        IdempotencyRecord record = existing(store.claim(key, fingerprint("a"), LEASE));
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.hasResponse()).isFalse();
        assertThat(record.fingerprint()).isEqualTo(fingerprint("a"));
        assertExpiresIn(record, RETENTION);
        assertThat(store.release(key, owner)).isFalse();
        assertThat(engine().execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> {
            throw new AssertionError("must not run again");
        })).isEqualTo(new Outcome.ResponseNotKept());
    }

    @Test
    void differentFingerprintIsReportedByTheEngine() {
        IdempotencyEngine engine = engine();
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
        IdempotencyEngine engine = engine();
        IdempotencyKey key = key();
        claimed(key, fingerprint("a"), LEASE);
        Outcome other = engine.execute(key, fingerprint("b"), IdempotencyConfig.ofDefaults(), () -> response());
        Outcome same = engine.execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> response());
        assertThat(other).isInstanceOf(Outcome.FingerprintMismatch.class);
        assertThat(same).isInstanceOf(Outcome.InProgress.class);
        assertThat(((Outcome.InProgress) same).retryAfter()).isBetween(LEASE.minus(SLACK), LEASE);
    }

    @Test
    void leasePassedAnotherClaimsAndTheLateHolderIsRefused() throws Exception {
        IdempotencyKey key = key();
        OwnerToken first = claimed(key, fingerprint("a"), SHORT);
        elapse(SHORT.plusMillis(100));

        OwnerToken second = claimed(key, fingerprint("a"), LEASE);
        assertThat(second).isNotEqualTo(first);

        assertThat(store.complete(key, first, response(), RETENTION)).isFalse();
        assertThat(store.release(key, first)).isFalse();
        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(record.owner()).isEqualTo(second);

        assertThat(store.complete(key, second, response(), RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void holderPastItsLeaseCannotCompleteEvenIfNobodyTookOver() throws Exception {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), SHORT);
        elapse(SHORT.plusMillis(100));
        assertThat(store.complete(key, owner, response(), RETENTION)).isFalse();
        assertThat(store.complete(key, owner, null, RETENTION)).isFalse();
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void manyThreadsTakeOverAnExpiredLeaseAndExactlyOneWins() throws Exception {
        IdempotencyKey key = key();
        claimed(key, fingerprint("a"), SHORT);
        elapse(SHORT.plusMillis(100));
        List<ClaimResult> results = Race.run(THREADS, () -> store.claim(key, fingerprint("a"), LEASE));
        assertThat(results).filteredOn(ClaimResult.Claimed.class::isInstance).hasSize(1);
    }

    @Test
    void afterRetentionTheKeyIsNewAgain() throws Exception {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, owner, response(), SHORT)).isTrue();
        assertThat(store.claim(key, fingerprint("a"), LEASE)).isInstanceOf(ClaimResult.Existing.class);

        elapse(SHORT.plusMillis(100));
        assertThat(store.find(key)).isEmpty();
        OwnerToken again = claimed(key, fingerprint("b"), LEASE);
        assertThat(again).isNotEqualTo(owner);
        IdempotencyRecord fresh = store.find(key).orElseThrow();
        assertThat(fresh.fingerprint()).isEqualTo(fingerprint("b"));
        assertThat(fresh.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(fresh.response()).isNull();
    }

    @Test
    void releaseLetsTheNextRequestExecute() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        assertThat(store.release(key, owner)).isTrue();
        assertThat(store.find(key)).isEmpty();
        claimed(key, fingerprint("a"), LEASE);
    }

    @Test
    void onlyTheHolderMayCompleteOrRelease() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        OwnerToken stranger = OwnerToken.random();
        assertThat(store.complete(key, stranger, response(), RETENTION)).isFalse();
        assertThat(store.complete(key, stranger, null, RETENTION)).isFalse();
        assertThat(store.release(key, stranger)).isFalse();
        assertThat(store.find(key).orElseThrow().owner()).isEqualTo(owner);
    }

    @Test
    void completedRecordCannotBeReleasedOrCompletedAgain() {
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();
        assertThat(store.complete(key, owner, StoredResponse.of(500, new byte[0]), RETENTION)).isFalse();
        assertThat(store.complete(key, owner, null, RETENTION)).isFalse();
        assertThat(store.release(key, owner)).isFalse();
        assertThat(store.find(key).orElseThrow().response()).isEqualTo(response());
    }

    @Test
    void absentKeyCannotBeCompletedOrReleased() {
        IdempotencyKey key = key();
        assertThat(store.complete(key, OwnerToken.random(), response(), RETENTION)).isFalse();
        assertThat(store.release(key, OwnerToken.random())).isFalse();
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void scopesKeepEqualNamesApart() {
        String name = "shared-" + UUID.randomUUID();
        IdempotencyKey alice = new IdempotencyKey("alice:POST /orders", name);
        IdempotencyKey bob = new IdempotencyKey("bob:POST /orders", name);
        OwnerToken aliceOwner = claimed(alice, fingerprint("a"), LEASE);
        assertThat(store.complete(alice, aliceOwner, response(), RETENTION)).isTrue();

        claimed(bob, fingerprint("a"), LEASE);
        assertThat(store.find(bob).orElseThrow().status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(store.find(alice).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
    }

    @Test
    void scopeAndNameBoundariesDoNotCollide() {
        String id = UUID.randomUUID().toString();
        IdempotencyKey one = new IdempotencyKey("a:" + id, "b");
        IdempotencyKey two = new IdempotencyKey("a", id + ":b");
        claimed(one, fingerprint("a"), LEASE);
        claimed(two, fingerprint("a"), LEASE);
    }

    @Test
    void aQuestionMarkAndAnUnpairedSurrogateNeverShareARecord() {
        String id = UUID.randomUUID().toString();
        IdempotencyKey question = new IdempotencyKey("alice? " + id, "k");
        claimed(question, fingerprint("a"), LEASE);
        assertThatThrownBy(() -> store.claim(new IdempotencyKey("alice\uD800 " + id, "k"), fingerprint("a"), LEASE))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
        IdempotencyKey pair = new IdempotencyKey("alice\uD83D\uDE00 " + id, "k");
        claimed(pair, fingerprint("a"), LEASE);
        assertThat(store.find(pair).orElseThrow().key()).isEqualTo(pair);
    }

    @Test
    void everyVisibleAsciiCharacterAndUnicodeScopesAreKeys() {
        StringBuilder visible = new StringBuilder();
        for (char c = 0x21; c <= 0x7E; c++) {
            visible.append(c);
        }
        String longest = (visible.toString() + visible + visible).substring(0, IdempotencyKey.MAX_NAME_LENGTH);
        IdempotencyKey key = new IdempotencyKey("用户-" + UUID.randomUUID() + ":POST /订单/{id}", longest);
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);
        assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().key()).isEqualTo(key);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "has space", "tab\there", "new\nline", "nul\u0000", "naïve", "订单", "\u007f"})
    void badKeysAreRejectedBeforeAnyStoreCall(String bad) {
        AtomicInteger storeCalls = new AtomicInteger();
        assertThatThrownBy(() -> {
            IdempotencyKey key = new IdempotencyKey("scope", bad);
            storeCalls.incrementAndGet();
            store.claim(key, fingerprint("a"), LEASE);
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
    void twoClientsOfOneStoreAgreeOnEveryLeaseAndAnswer() throws Exception {
        IdempotencyStore other = createSecondClient();
        IdempotencyKey key = key();
        OwnerToken owner = claimed(key, fingerprint("a"), LEASE);

        IdempotencyRecord seen = existing(other.claim(key, fingerprint("a"), LEASE));
        assertThat(seen.owner()).isEqualTo(owner);
        assertExpiresIn(seen, LEASE);
        assertThat(other.complete(key, OwnerToken.random(), response(), RETENTION)).isFalse();
        assertThat(store.complete(key, owner, response(), RETENTION)).isTrue();
        assertThat(other.find(key).orElseThrow().response()).isEqualTo(response());

        IdempotencyKey brief = key();
        OwnerToken briefOwner = claimed(other, brief, fingerprint("a"), SHORT);
        assertThat(store.claim(brief, fingerprint("a"), LEASE)).isInstanceOf(ClaimResult.Existing.class);
        elapse(SHORT.plusMillis(100));
        claimed(store, brief, fingerprint("a"), LEASE);
        assertThat(other.complete(brief, briefOwner, response(), RETENTION)).isFalse();
    }

    @Test
    void engineReleasesOnExceptionSoTheRetryExecutes() {
        IdempotencyEngine engine = engine();
        IdempotencyKey key = key();
        IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        assertThatThrownBy(() -> engine.execute(key, fingerprint("a"), config, () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(store.find(key)).isEmpty();

        Outcome retry = engine.execute(key, fingerprint("a"), config, () -> response());
        assertThat(retry).isEqualTo(new Outcome.Executed(response(), Outcome.Recording.STORED));
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 503, 408, 409, 425, 429})
    void engineReleasesServerErrorsAndTransientStatuses(int status) {
        IdempotencyKey key = key();
        StoredResponse failed = StoredResponse.of(status, "failed".getBytes(StandardCharsets.UTF_8));
        Outcome outcome = engine().execute(key, fingerprint("a"), IdempotencyConfig.ofDefaults(), () -> failed);
        assertThat(outcome).isEqualTo(new Outcome.Executed(failed, Outcome.Recording.RELEASED));
        assertThat(store.find(key)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 302, 400, 404, 422})
    void engineStoresDeterministicAnswers(int status) {
        IdempotencyEngine engine = engine();
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
        IdempotencyEngine engine = engine();
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
    void permissiveEngineRunsEachKeyOnceWhileTheStoreIsUp() throws Exception {
        IdempotencyEngine engine = engine();
        IdempotencyConfig permissive = IdempotencyConfig.custom().storeFailurePolicy(StoreFailurePolicy.PERMISSIVE).build();
        for (int round = 0; round < 10; round++) {
            IdempotencyKey key = key();
            AtomicInteger executions = new AtomicInteger();
            List<Outcome> outcomes = Race.run(16, () -> engine.execute(key, fingerprint("a"), permissive, () -> {
                executions.incrementAndGet();
                return response();
            }));
            assertThat(executions).as("round %d", round).hasValue(1);
            assertThat(outcomes).noneMatch(o -> o instanceof Outcome.Executed e && e.recording() == Outcome.Recording.UNPROTECTED);
        }
    }

    @Test
    void unreachableServerIsAClearExceptionNeverASilentSuccess() throws Exception {
        Optional<IdempotencyStore> dead = createUnreachableStore();
        assumeTrue(dead.isPresent(), "this store has no server");
        IdempotencyStore down = dead.get();
        IdempotencyKey key = key();
        assertThatThrownBy(() -> down.claim(key, fingerprint("a"), LEASE)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.complete(key, OwnerToken.random(), response(), RETENTION))
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.release(key, OwnerToken.random())).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> down.find(key)).isInstanceOf(StoreUnavailableException.class);

        AtomicInteger executions = new AtomicInteger();
        IdempotencyEngine engine = IdempotencyEngine.builder(down).build();
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
