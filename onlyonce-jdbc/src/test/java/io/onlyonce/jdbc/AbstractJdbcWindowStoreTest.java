package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.jdbc.ScratchDatabase.PoolMode;
import io.onlyonce.testing.AbstractWindowStoreContractTest;
import io.onlyonce.testing.Race;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The window contract on one database and pool mode, plus what a user sees in the table. */
abstract class AbstractJdbcWindowStoreTest extends AbstractWindowStoreContractTest {

    /** How many hits each of the racing threads makes, one after the other. */
    private static final int ROUNDS = 10;

    /** The scratch database of the test class. */
    protected abstract ScratchDatabase database();

    @Override
    protected WindowStore createStore() {
        return new JdbcWindowStore(database().dataSource(), database().dialect());
    }

    @Override
    protected WindowStore createSecondClient() {
        return new JdbcWindowStore(database().secondDataSource(), database().dialect());
    }

    @Override
    protected Optional<WindowStore> createUnreachableStore() {
        if (database().mode() != PoolMode.AUTOCOMMIT) {
            return Optional.empty(); // never connects, so the pool's mode changes nothing: run once, on the autocommit suite
        }
        return database().unreachableDataSource().map(dead -> new JdbcWindowStore(dead, database().dialect()));
    }

    private static Fingerprint newFingerprint() {
        return Fingerprint.of("POST", "/payments", UUID.randomUUID().toString());
    }

    /** The end and the count of a fingerprint's window row. */
    record Row(long windowEndMs, long hitCount) {
    }

    private Row row(Fingerprint fingerprint) throws Exception {
        return database().query("SELECT window_end_ms, hit_count FROM onlyonce_window WHERE fingerprint = ?",
                r -> new Row(r.getLong(1), r.getLong(2)), fingerprint.hex()).get(0);
    }

    @Test
    void rowHoldsTheEndOfTheWindowOnTheServersClockAndItsCount() throws Exception {
        Fingerprint fingerprint = newFingerprint();
        long before = database().serverNow();
        WindowHit first = store.hit(fingerprint, SHORT);
        long after = database().serverNow();
        Row opened = row(fingerprint);
        assertThat(first).isEqualTo(new WindowHit(1, SHORT));
        assertThat(opened.windowEndMs()).isBetween(before + SHORT.toMillis(), after + SHORT.toMillis());
        assertThat(opened.hitCount()).isEqualTo(1);

        WindowHit second = store.hit(fingerprint, WINDOW);
        assertThat(second.count()).isEqualTo(2);
        assertThat(second.remaining()).isLessThanOrEqualTo(SHORT);
        assertThat(row(fingerprint)).as("a repeat does not move the end").isEqualTo(new Row(opened.windowEndMs(), 2));

        elapse(SHORT.plusMillis(100));
        long reopenedAfter = database().serverNow();
        assertThat(store.hit(fingerprint, WINDOW)).isEqualTo(new WindowHit(1, WINDOW));
        Row reopened = row(fingerprint);
        assertThat(reopened.hitCount()).isEqualTo(1);
        assertThat(reopened.windowEndMs()).isGreaterThanOrEqualTo(reopenedAfter + WINDOW.toMillis());
    }

    @Test
    void countsRunOnPastAnyLimitAndStayDistinctUnderRaces() throws Exception {
        Fingerprint fingerprint = newFingerprint();
        for (int i = 0; i < 3; i++) {
            store.hit(fingerprint, WINDOW);
        }
        List<WindowHit> hits = Race.run(16, () -> store.hit(fingerprint, WINDOW));
        assertThat(hits.stream().map(WindowHit::count))
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(4, 19).boxed().toList());
        assertThat(row(fingerprint).hitCount()).isEqualTo(19);
    }

    @Test
    void sixtyFourThreadsHittingOneWindowAreEachCountedOnceWhateverThePoolsIsolation() throws Exception {
        IsolationProbe probe = new IsolationProbe();
        JdbcWindowStore probed = new JdbcWindowStore(probe.wrap(database().dataSource()), database().dialect());
        Fingerprint fingerprint = newFingerprint();

        List<WindowHit> hits = Calls.race(THREADS, ROUNDS, round -> probed.hit(fingerprint, WINDOW)).allSucceeded();

        assertThat(hits).filteredOn(WindowHit::first).hasSize(1);
        assertThat(hits.stream().map(WindowHit::count))
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, THREADS * ROUNDS).boxed().toList());
        assertThat(row(fingerprint).hitCount()).isEqualTo(THREADS * ROUNDS);
        probe.assertStatementsRanWithin(database().isolation(), database().storeIsolation());
        probe.assertHandedBackAt(database().isolation());
    }

    @Test
    void nonPositiveWindowsAreRefused() {
        assertThatThrownBy(() -> store.hit(newFingerprint(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.hit(newFingerprint(), Duration.ofMillis(-5))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void purgeExpiredDeletesExactlyTheEndedWindowsInBatchesEachCommittedOnItsOwn() throws Exception {
        database().update("DELETE FROM onlyonce_window");
        for (int i = 0; i < 7; i++) {
            assertThat(store.hit(newFingerprint(), SHORT).first()).isTrue();
        }
        List<Fingerprint> open = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Fingerprint fingerprint = newFingerprint();
            assertThat(store.hit(fingerprint, WINDOW).first()).isTrue();
            open.add(fingerprint);
        }
        elapse(SHORT.plusMillis(100));

        List<Long> rowsSeenByOthers = new ArrayList<>();
        ExecutionCounter deletes = new ExecutionCounter("DELETE",
                earlier -> rowsSeenByOthers.add(database().queryLong("SELECT COUNT(*) FROM onlyonce_window")));
        JdbcWindowStore counted = new JdbcWindowStore(deletes.wrap(database().dataSource()), database().dialect());
        assertThat(counted.purgeExpired(4)).isEqualTo(7);
        assertThat(deletes.executions()).as("batches of 4 and 3").isEqualTo(2);
        assertThat(rowsSeenByOthers).as("each batch committed before the next").containsExactly(9L, 5L);
        assertThat(database().queryLong("SELECT COUNT(*) FROM onlyonce_window")).isEqualTo(2);
        for (Fingerprint fingerprint : open) {
            assertThat(store.hit(fingerprint, WINDOW).count()).isEqualTo(2);
        }
    }
}
