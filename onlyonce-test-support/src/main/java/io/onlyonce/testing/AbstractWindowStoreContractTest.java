package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link WindowStore} keeps. A store's test extends this class and returns a
 * store on the real server from {@link #createStore()}.
 */
public abstract class AbstractWindowStoreContractTest {

    protected static final int THREADS = 64;
    protected static final Duration WINDOW = Duration.ofSeconds(3);

    protected WindowStore store;
    protected MutableClock clock;

    /** A store on the real server, isolated from every other test. Called before each test. */
    protected abstract WindowStore createStore() throws Exception;

    /** A store whose server is stopped or unreachable; empty where there is no server. */
    protected Optional<WindowStore> createUnreachableStore() throws Exception {
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

    private static Fingerprint fingerprint() {
        return Fingerprint.of("POST", "/orders", UUID.randomUUID().toString());
    }

    @Test
    void firstRequestOpensTheWindowAndRepeatsInsideItAreNotFirst() {
        Fingerprint fp = fingerprint();
        Instant now = clock.instant();
        assertThat(store.firstInWindow(fp, WINDOW, now)).isTrue();
        assertThat(store.firstInWindow(fp, WINDOW, now)).isFalse();
        assertThat(store.firstInWindow(fp, WINDOW, now.plus(WINDOW).minusMillis(1))).isFalse();
    }

    @Test
    void afterTheWindowTheSameRequestIsFirstAgain() {
        Fingerprint fp = fingerprint();
        Instant now = clock.instant();
        assertThat(store.firstInWindow(fp, WINDOW, now)).isTrue();
        Instant later = now.plus(WINDOW);
        assertThat(store.firstInWindow(fp, WINDOW, later)).isTrue();
        assertThat(store.firstInWindow(fp, WINDOW, later.plusMillis(1))).isFalse();
    }

    @Test
    void repeatsDoNotExtendTheWindow() {
        Fingerprint fp = fingerprint();
        Instant now = clock.instant();
        assertThat(store.firstInWindow(fp, WINDOW, now)).isTrue();
        assertThat(store.firstInWindow(fp, WINDOW, now.plusSeconds(2))).isFalse();
        assertThat(store.firstInWindow(fp, WINDOW, now.plus(WINDOW))).isTrue();
    }

    @Test
    void manyThreadsWithOneFingerprintGetExactlyOneFirst() throws Exception {
        Fingerprint fp = fingerprint();
        Instant now = clock.instant();
        List<Boolean> results = Race.run(THREADS, () -> store.firstInWindow(fp, WINDOW, now));
        assertThat(results).filteredOn(Boolean::booleanValue).hasSize(1);

        Instant later = now.plus(WINDOW);
        List<Boolean> again = Race.run(THREADS, () -> store.firstInWindow(fp, WINDOW, later));
        assertThat(again).filteredOn(Boolean::booleanValue).hasSize(1);
    }

    @Test
    void differentFingerprintsHaveTheirOwnWindows() {
        Instant now = clock.instant();
        assertThat(store.firstInWindow(fingerprint(), WINDOW, now)).isTrue();
        assertThat(store.firstInWindow(fingerprint(), WINDOW, now)).isTrue();
    }

    @Test
    void unreachableServerIsAClearExceptionNeverASilentSuccess() throws Exception {
        Optional<WindowStore> dead = createUnreachableStore();
        assumeTrue(dead.isPresent(), "this store has no server");
        assertThatThrownBy(() -> dead.get().firstInWindow(fingerprint(), WINDOW, clock.instant()))
                .isInstanceOf(StoreUnavailableException.class);
    }
}
