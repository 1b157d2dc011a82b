package io.onlyonce.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.messaging.ScratchDatabase.PoolMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A relay that polls once an hour, woken only by {@link PostgresWakeUp}: a commit in another
 * "process" (another connection, no {@link OutboxRelay#wakeUp()} call) is published within seconds;
 * a rolled-back notification wakes nobody; the listener survives its connection being killed.
 */
class PostgresWakeUpIT {

    @RegisterExtension
    static final ScratchDatabase DATABASE = ScratchDatabase.postgres().using(PoolMode.AUTOCOMMIT);

    private final JdbcOutbox outbox = new JdbcOutbox(DATABASE.dialect());

    @Test
    void aCommitThatNotifiedWakesAnIdleRelayElsewhere() throws Exception {
        RecordingTransport transport = RecordingTransport.confirming();
        OutboxRelay relay = new OutboxRelay(DATABASE.dataSource(), DATABASE.dialect(), transport,
                RelayConfig.custom().pollInterval(Duration.ofHours(1)).build());
        AtomicInteger wakeUps = new AtomicInteger();
        relay.start();
        try (PostgresWakeUp wakeUp = new PostgresWakeUp(DATABASE.dataSource(), () -> {
            wakeUps.incrementAndGet();
            relay.wakeUp();
        }).start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUp.connectionsListened() == 1 && wakeUps.get() >= 1);
            Thread.sleep(500); // the poll that listening began with is done
            String silent = AbstractMessagingTest.uniqueId("silent");
            commit(silent, false);
            Thread.sleep(1_000);
            assertThat(status(silent)).as("the relay is idle: nothing woke it").isEqualTo("PREPARED");
            String notified = AbstractMessagingTest.uniqueId("notified");
            commit(notified, true);

            await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCESS".equals(status(notified)));
            // the claim took every due row, the one that did not notify too
            assertThat(status(silent)).isEqualTo("SUCCESS");

            int before = wakeUps.get();
            try (Connection connection = DATABASE.dataSource().getConnection()) {
                connection.setAutoCommit(false);
                PostgresWakeUp.notifyRelays(connection);
                connection.rollback();
            }
            Thread.sleep(1_000);
            assertThat(wakeUps.get()).as("a rolled-back notification wakes nobody").isEqualTo(before);
        } finally {
            relay.stop();
        }
    }

    @Test
    void theWakeUpListensAgainAfterItsConnectionWasKilled() throws Exception {
        RecordingTransport transport = RecordingTransport.confirming();
        OutboxRelay relay = new OutboxRelay(DATABASE.dataSource(), DATABASE.dialect(), transport,
                RelayConfig.custom().pollInterval(Duration.ofHours(1)).build());
        relay.start();
        try (PostgresWakeUp wakeUp = new PostgresWakeUp(DATABASE.dataSource(), relay::wakeUp, Duration.ofMillis(200)).start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUp.connectionsListened() == 1);
            try (Connection connection = DATABASE.dataSource().getConnection();
                    PreparedStatement kill = connection.prepareStatement("SELECT pg_terminate_backend(pid)"
                            + " FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "
                            + PostgresWakeUp.CHANNEL + "'")) {
                try (ResultSet killed = kill.executeQuery()) {
                    assertThat(killed.next()).as("the listening backend").isTrue();
                }
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> wakeUp.connectionsListened() == 2);
            // the poll on listening again publishes what was committed while nobody listened; this one notifies
            String id = AbstractMessagingTest.uniqueId("after-kill");
            commit(id, true);
            await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCESS".equals(status(id)));
            assertThat(transport.publishes(id)).isOne();
        } finally {
            relay.stop();
        }
    }

    private void commit(String id, boolean notify) throws SQLException {
        try (Connection connection = DATABASE.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            outbox.record(connection, AbstractMessagingTest.message(id));
            if (notify) {
                PostgresWakeUp.notifyRelays(connection);
            }
            connection.commit();
        }
    }

    private static String status(String id) throws SQLException {
        try (Connection connection = DATABASE.dataSource().getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT status FROM " + MessagingSchema.MESSAGE_LOG_TABLE + " WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }
}
