package io.onlyonce.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.fixtures.Postgres;
import io.onlyonce.messaging.JdbcOutbox;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.PostgresWakeUp;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code onlyonce.messaging.relay.listen-notify=true} on PostgreSQL: a business transaction that
 * records messages sends one NOTIFY, delivered at its commit; the instance's relay listens, so a row
 * committed by another instance is published long before the relay's next poll (an hour here).
 */
class ListenNotifyTest {

    private static final String DATABASE = Postgres.scratchName("oo_listen_notify_");

    @BeforeAll
    static void createDatabase() throws Exception {
        Postgres.admin("CREATE DATABASE " + DATABASE);
    }

    @AfterAll
    static void dropDatabase() throws Exception {
        Postgres.admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnlyOnceAutoConfiguration.class, OnlyOnceMessagingAutoConfiguration.class,
                    DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + Postgres.SERVER + DATABASE, "spring.datasource.username=postgres",
                    "spring.datasource.hikari.maximum-pool-size=4",
                    "onlyonce.messaging.relay.poll-interval=1h", "onlyonce.messaging.relay.listen-notify=true",
                    "onlyonce.messaging.purge-after=1h", "onlyonce.messaging.initialize-schema=always")
            .withBean("pointsConsumer", ConsumerDefinition.class, () -> ConsumerDefinition.of("points", "orders", "order.paid",
                    (message, connection) -> { }));

    @Test
    void aRowAnotherInstanceCommittedIsPublishedOnItsNotifyAndOurCommitsNotifyOnce() throws Exception {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "
                            + PostgresWakeUp.CHANNEL + "'", Long.class) == 1);
            Thread.sleep(500); // the poll the wake-up begins with is over: from now on only a notification wakes the relay

            // another instance: its own connection, its own commit, no relay of ours told in this JVM
            String id = OutboxMessage.id("elsewhere-" + System.nanoTime(), "paid");
            try (Connection other = DriverManager.getConnection(Postgres.SERVER + DATABASE, "postgres", "")) {
                other.setAutoCommit(false);
                new JdbcOutbox(JdbcDialect.POSTGRESQL).record(other, new OutboxMessage(id, "orders", "order.paid", "{}", Map.of()));
                PostgresWakeUp.notifyRelays(other);
                other.commit();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> "SUCCESS".equals(jdbc.queryForObject(
                    "SELECT status FROM onlyonce_message_log WHERE id = ?", String.class, id)));

            // our own business transaction: one notification for its two messages, at its commit
            try (Connection listener = DriverManager.getConnection(Postgres.SERVER + DATABASE, "postgres", "");
                    Statement listen = listener.createStatement()) {
                listen.execute("LISTEN " + PostgresWakeUp.CHANNEL);
                TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
                new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
                    outbox.record(new OutboxMessage(OutboxMessage.id("ours-" + System.nanoTime(), "a"), "orders", "order.paid", "{}", Map.of()));
                    outbox.record(new OutboxMessage(OutboxMessage.id("ours-" + System.nanoTime(), "b"), "orders", "order.paid", "{}", Map.of()));
                });
                PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(5_000);
                assertThat(received).extracting(PGNotification::getName).containsExactly(PostgresWakeUp.CHANNEL);
            }
        });
    }
}
