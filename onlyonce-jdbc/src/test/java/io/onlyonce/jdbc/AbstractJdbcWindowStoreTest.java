package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The window contract on one database, plus what a user sees in the table. */
abstract class AbstractJdbcWindowStoreTest extends AbstractWindowStoreContractTest {

    /** The scratch database of the test class. */
    protected abstract ScratchDatabase database();

    @Override
    protected WindowStore createStore() {
        return new JdbcWindowStore(database().dataSource(), database().dialect());
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() {
        return database().unreachableDataSource().map(dead -> new JdbcWindowStore(dead, database().dialect()));
    }

    private static Fingerprint newFingerprint() {
        return Fingerprint.of("POST", "/payments", UUID.randomUUID().toString());
    }

    private List<Long> windowEnd(Fingerprint fingerprint) throws Exception {
        return database().query("SELECT window_end_ms FROM onlyonce_window WHERE fingerprint = ?",
                r -> r.getLong(1), fingerprint.hex());
    }

    @Test
    void rowHoldsTheEndOfTheOpenWindow() throws Exception {
        Fingerprint fingerprint = newFingerprint();
        Instant now = clock.instant();
        assertThat(store.firstInWindow(fingerprint, WINDOW, now)).isTrue();
        assertThat(windowEnd(fingerprint)).containsExactly(now.plus(WINDOW).toEpochMilli());

        assertThat(store.firstInWindow(fingerprint, WINDOW, now.plusSeconds(1))).isFalse();
        assertThat(windowEnd(fingerprint)).containsExactly(now.plus(WINDOW).toEpochMilli());

        Instant later = now.plus(WINDOW);
        assertThat(store.firstInWindow(fingerprint, WINDOW, later)).isTrue();
        assertThat(windowEnd(fingerprint)).containsExactly(later.plus(WINDOW).toEpochMilli());
    }

    @Test
    void purgeExpiredDeletesExactlyTheEndedWindowsInBatches() throws Exception {
        database().update("DELETE FROM onlyonce_window");
        Instant now = clock.instant();
        for (int i = 0; i < 7; i++) {
            assertThat(store.firstInWindow(newFingerprint(), Duration.ofSeconds(1), now)).isTrue();
        }
        List<Fingerprint> open = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Fingerprint fingerprint = newFingerprint();
            assertThat(store.firstInWindow(fingerprint, Duration.ofMinutes(1), now)).isTrue();
            open.add(fingerprint);
        }

        ExecutionCounter deletes = new ExecutionCounter("DELETE");
        JdbcWindowStore counted = new JdbcWindowStore(deletes.wrap(database().dataSource()), database().dialect());
        Instant later = now.plusSeconds(1);
        assertThat(counted.purgeExpired(later, 7)).isEqualTo(7);
        assertThat(deletes.executions()).as("a full batch of 7, then an empty one").isEqualTo(2);
        assertThat(database().queryLong("SELECT COUNT(*) FROM onlyonce_window")).isEqualTo(2);
        for (Fingerprint fingerprint : open) {
            assertThat(store.firstInWindow(fingerprint, WINDOW, later)).isFalse();
        }
    }
}
