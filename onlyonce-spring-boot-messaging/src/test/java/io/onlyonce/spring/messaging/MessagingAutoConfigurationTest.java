package io.onlyonce.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.jdbc.JdbcIdempotencyStore;
import io.onlyonce.messaging.InProcessBroker;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The message layer's auto-configuration on its embedded default (H2, the in-process transport):
 * a message recorded in a business transaction reaches the consumer's effect once, whatever is
 * recorded twice, and nothing of a rolled-back transaction is sent.
 */
class MessagingAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnlyOnceAutoConfiguration.class, OnlyOnceMessagingAutoConfiguration.class,
                    DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:oo-messaging-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "onlyonce.token.secrets[0]=a-messaging-test-secret-0123456789abcdef",
                    "onlyonce.messaging.relay.poll-interval=200ms")
            .withBean("pointsConsumer", ConsumerDefinition.class, () -> ConsumerDefinition.of("points", "orders", "order.paid",
                    (message, connection) -> {
                        try (var insert = connection.prepareStatement("INSERT INTO points_ledger (message_id, body) VALUES (?, ?)")) {
                            insert.setString(1, message.id());
                            insert.setString(2, message.payload());
                            insert.executeUpdate();
                        }
                    }));

    private static OutboxMessage paid(String orderNo) {
        return new OutboxMessage(OutboxMessage.id(orderNo, "paid"), "orders", "order.paid",
                "{\"orderNo\":\"" + orderNo + "\"}", Map.of("X-Request-ID", "req-" + orderNo));
    }

    private static void record(ApplicationContext context, boolean commit, OutboxMessage... messages) {
        TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
        new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class))
                .executeWithoutResult(status -> {
                    for (OutboxMessage message : messages) {
                        outbox.record(message);
                    }
                    if (!commit) {
                        status.setRollbackOnly();
                    }
                });
    }

    @Test
    void aTransportWhoseModuleIsMissingFailsStartUpNamingTheArtifactsToAdd() {
        runner.withPropertyValues("onlyonce.messaging.transport=rabbit")
                .withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(
                        "io.onlyonce.messaging.rabbit"))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(io.onlyonce.spring.OnlyOnceConfigurationException.class)
                        .hasMessageContaining("No OnlyOnce MessageTransport for onlyonce.messaging.transport=rabbit")
                        .hasMessageContaining("io.onlyonce:onlyonce-messaging-rabbit"));
        runner.withPropertyValues("onlyonce.messaging.transport=kafka")
                .withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(
                        "io.onlyonce.messaging.kafka"))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(io.onlyonce.spring.OnlyOnceConfigurationException.class)
                        .hasMessageContaining("No OnlyOnce MessageTransport for onlyonce.messaging.transport=kafka")
                        .hasMessageContaining("io.onlyonce:onlyonce-messaging-kafka"));
    }

    @Test
    void listenNotifyOnADatabaseOtherThanPostgresFailsStartUpSayingSo() {
        runner.withPropertyValues("onlyonce.messaging.relay.listen-notify=true")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(io.onlyonce.spring.OnlyOnceConfigurationException.class)
                        .hasMessageContaining("onlyonce.messaging.relay.listen-notify=true needs PostgreSQL"));
    }

    @Test
    void aMessageRecordedInTheBusinessTransactionTakesEffectOnceAndARolledBackOneNever() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(MessageTransport.class)).isInstanceOf(InProcessBroker.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            jdbc.execute("CREATE TABLE points_ledger (message_id VARCHAR(255) PRIMARY KEY, body VARCHAR(1000))");

            record(context, true, paid("A1"), paid("A2"), paid("A1"));
            record(context, true, paid("A2"));
            record(context, false, paid("B1"));

            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                    "SELECT COUNT(*) FROM onlyonce_message_log WHERE status = 'SUCCESS'", Long.class) == 2);
            assertThat(jdbc.queryForList("SELECT message_id FROM points_ledger ORDER BY message_id", String.class))
                    .containsExactly("A1_paid", "A2_paid");
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM onlyonce_message_log", Long.class))
                    .as("one row per message id; nothing of the rolled-back transaction").isEqualTo(2);
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM onlyonce_inbox WHERE consumer = 'points'", Long.class))
                    .isEqualTo(2);
            OnlyOnceStatistics statistics = context.getBean(OnlyOnceStatistics.class);
            assertThat(statistics.count("message", "sent")).isEqualTo(2);
            assertThat(statistics.count("message", "processed")).isEqualTo(2);
            assertThat(context.getBean(OutboxRelay.class).isRunning()).isTrue();
        });
    }

    @Test
    void theMessageLayerSitsBesideTheJdbcStoreOnOneDatabase() {
        runner.withPropertyValues("onlyonce.store=jdbc").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(io.onlyonce.spring.autoconfigure.TransactionAwareJdbcIdempotencyStore.class);
            assertThat(context).hasSingleBean(JdbcDialect.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
            jdbc.execute("CREATE TABLE points_ledger (message_id VARCHAR(255) PRIMARY KEY, body VARCHAR(1000))");
            record(context, true, paid("D1"));
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                    "SELECT COUNT(*) FROM points_ledger", Long.class) == 1);
        });
    }

    @Test
    void recordingOutsideATransactionIsRefused() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(TransactionalOutbox.class).record(paid("C1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inside the business transaction"));
    }

    @Test
    void theLayerBacksOffWithoutTheModuleOrWhenDisabled() {
        runner.withClassLoader(new FilteredClassLoader(io.onlyonce.messaging.JdbcOutbox.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TransactionalOutbox.class));
        runner.withPropertyValues("onlyonce.messaging.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxRelay.class));
    }
}
