package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link WindowStore} keeps. A store's test extends this class and returns a
 * store on the real server from {@link #createStore()}. Windows end on the store's clock: tests let
 * short windows pass with {@link #elapse}.
 */
public abstract class AbstractWindowStoreContractTest {

    protected static final int THREADS = 64;
    /** A window that does not end during a test. */
    protected static final Duration WINDOW = Duration.ofSeconds(30);
    /** A window short enough to let pass in a test. */
    protected static final Duration SHORT = Duration.ofMillis(400);
    protected static final Duration SLACK = Duration.ofSeconds(5);

    protected WindowStore store;
    protected MutableClock clock;

    /** A store on the real server, isolated from every other test. Called before each test. */
    protected abstract WindowStore createStore() throws Exception;

    /**
     * A second client of the same data, configured as another instance of the application would be;
     * the in-memory store returns the same store.
     */
    protected WindowStore createSecondClient() throws Exception {
        return store;
    }

    /** A store whose server is stopped or unreachable; empty where there is no server. */
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
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

    private static Fingerprint fingerprint() {
        return Fingerprint.of("POST", "/orders", UUID.randomUUID().toString());
    }

    @Test
    void firstRequestOpensTheWindowAndRepeatsInsideItAreCounted() {
        Fingerprint fp = fingerprint();
        WindowHit first = store.hit(fp, WINDOW);
        assertThat(first.first()).isTrue();
        assertThat(first.count()).isEqualTo(1);
        assertThat(first.remaining()).isLessThanOrEqualTo(WINDOW).isGreaterThan(WINDOW.minus(SLACK));

        WindowHit second = store.hit(fp, WINDOW);
        assertThat(second.first()).isFalse();
        assertThat(second.count()).isEqualTo(2);
        assertThat(second.remaining()).isLessThanOrEqualTo(first.remaining()).isGreaterThan(WINDOW.minus(SLACK));
        assertThat(second.retryAfterSeconds()).isBetween(WINDOW.minus(SLACK).toSeconds(), WINDOW.toSeconds());
        assertThat(store.hit(fp, WINDOW).count()).isEqualTo(3);
    }

    @Test
    void afterTheWindowTheSameRequestIsFirstAgain() throws Exception {
        Fingerprint fp = fingerprint();
        assertThat(store.hit(fp, SHORT).first()).isTrue();
        assertThat(store.hit(fp, SHORT).first()).isFalse();
        elapse(SHORT.plusMillis(100));
        assertThat(store.hit(fp, WINDOW).first()).isTrue();
        assertThat(store.hit(fp, WINDOW).first()).isFalse();
    }

    @Test
    void repeatsDoNotExtendTheWindow() throws Exception {
        Fingerprint fp = fingerprint();
        assertThat(store.hit(fp, SHORT).first()).isTrue();
        elapse(SHORT.dividedBy(2));
        assertThat(store.hit(fp, SHORT).first()).isFalse();
        elapse(SHORT.dividedBy(2).plusMillis(100));
        assertThat(store.hit(fp, SHORT).first()).as("the window opened by the first hit is over").isTrue();
    }

    @Test
    void manyThreadsWithOneFingerprintGetExactlyOneFirstAndDistinctCounts() throws Exception {
        Fingerprint fp = fingerprint();
        List<WindowHit> results = Race.run(THREADS, () -> store.hit(fp, WINDOW));
        assertThat(results).filteredOn(WindowHit::first).hasSize(1);
        assertThat(results.stream().map(WindowHit::count)).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.rangeClosed(1, THREADS).boxed().toList());
    }

    @Test
    void manyThreadsOnAnEndedWindowOpenExactlyOneNewWindow() throws Exception {
        Fingerprint fp = fingerprint();
        store.hit(fp, SHORT);
        elapse(SHORT.plusMillis(100));
        List<WindowHit> again = Race.run(THREADS, () -> store.hit(fp, WINDOW));
        assertThat(again).filteredOn(WindowHit::first).hasSize(1);
    }

    @Test
    void aReleasedHitIsTakenBackAndTheLastOneReleasedClosesTheWindow() {
        Fingerprint fp = fingerprint();
        assertThat(store.hit(fp, WINDOW).first()).isTrue();
        store.release(fp);
        assertThat(store.hit(fp, WINDOW).first()).as("the refused first request no longer holds the window").isTrue();
        assertThat(store.hit(fp, WINDOW).count()).isEqualTo(2);
        store.release(fp);
        WindowHit again = store.hit(fp, WINDOW);
        assertThat(again.count()).as("one hit taken back of two").isEqualTo(2);
        assertThat(again.remaining()).isGreaterThan(WINDOW.minus(SLACK));

        Fingerprint none = fingerprint();
        store.release(none);
        assertThat(store.hit(none, WINDOW).first()).as("releasing where no window is open changes nothing").isTrue();
        assertThat(store.hit(none, WINDOW).first()).isFalse();
    }

    @Test
    void releasingAnEndedWindowDoesNothing() throws Exception {
        Fingerprint fp = fingerprint();
        store.hit(fp, SHORT);
        elapse(SHORT.plusMillis(100));
        store.release(fp);
        assertThat(store.hit(fp, WINDOW).first()).isTrue();
        assertThat(store.hit(fp, WINDOW).first()).isFalse();
    }

    @Test
    void manyThreadsReleasingTheirHitsLeaveTheCountTheOthersMade() throws Exception {
        Fingerprint fp = fingerprint();
        Race.run(THREADS, () -> store.hit(fp, WINDOW));
        Race.run(THREADS / 2, () -> {
            store.release(fp);
            return null;
        });
        assertThat(store.hit(fp, WINDOW).count()).isEqualTo(THREADS - THREADS / 2 + 1);
    }

    @Test
    void differentFingerprintsHaveTheirOwnWindows() {
        assertThat(store.hit(fingerprint(), WINDOW).first()).isTrue();
        assertThat(store.hit(fingerprint(), WINDOW).first()).isTrue();
    }

    @Test
    void twoClientsOfOneStoreShareEveryWindow() throws Exception {
        WindowStore other = createSecondClient();
        Fingerprint fp = fingerprint();
        assertThat(store.hit(fp, WINDOW).first()).isTrue();
        WindowHit seen = other.hit(fp, WINDOW);
        assertThat(seen.first()).isFalse();
        assertThat(seen.remaining()).isGreaterThan(WINDOW.minus(SLACK));
    }

    @Test
    void unreachableServerIsAClearExceptionNeverASilentSuccess() throws Exception {
        Optional<WindowStore> dead = createUnreachableStore();
        assumeTrue(dead.isPresent(), "this store has no server");
        assertThatThrownBy(() -> dead.get().hit(fingerprint(), WINDOW)).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> dead.get().release(fingerprint())).isInstanceOf(StoreUnavailableException.class);
    }
}
