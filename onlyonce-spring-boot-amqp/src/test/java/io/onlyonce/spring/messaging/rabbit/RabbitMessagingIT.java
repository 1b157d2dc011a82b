package io.onlyonce.spring.messaging.rabbit;

import io.onlyonce.fixtures.BootLine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.rabbit.RabbitMessageTransport;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The message layer's auto-configuration on the real RabbitMQ at 127.0.0.1:5672: the transport
 * publishes on confirms, the consumer's queue, binding and dead-letter queue are declared, and a
 * message recorded twice, in two transactions, takes effect once; one without an id is dead-lettered
 * and counted. Names are unique per run and the
 * queues are deleted afterwards.
 */
class RabbitMessagingIT {

    @Test
    void aMessageGoesThroughRabbitMqAndTakesEffectOnce() {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String exchange = "oo-it-orders-" + run;
        String queue = "oo-it-points-" + run;
        new ApplicationContextRunner()
                .withConfiguration(BootLine.with(new Class<?>[] {OnlyOnceAutoConfiguration.class,
                        OnlyOnceMessagingAutoConfiguration.class, OnlyOnceRabbitAutoConfiguration.class}, BootLine.DATA_SOURCE, BootLine.DATA_SOURCE_TRANSACTION_MANAGER,
                        BootLine.TRANSACTION, BootLine.RABBIT))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:oo-rabbit-" + run + ";DB_CLOSE_DELAY=-1",
                        "onlyonce.token.secrets[0]=a-messaging-test-secret-0123456789abcdef",
                        "onlyonce.messaging.transport=rabbit",
                        "spring.rabbitmq.host=127.0.0.1", "spring.rabbitmq.port=5672",
                        "spring.rabbitmq.publisher-confirm-type=correlated", "spring.rabbitmq.publisher-returns=true")
                .withBean("pointsConsumer", ConsumerDefinition.class, () -> ConsumerDefinition.of(queue, exchange, "order.paid",
                        (message, connection) -> {
                            try (var insert = connection.prepareStatement("INSERT INTO ledger (message_id, request_id) VALUES (?, ?)")) {
                                insert.setString(1, message.id());
                                insert.setString(2, message.headers().get("X-Request-ID"));
                                insert.executeUpdate();
                            }
                        }))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(io.onlyonce.messaging.MessageTransport.class)).isInstanceOf(RabbitMessageTransport.class);
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
                    jdbc.execute("CREATE TABLE ledger (message_id VARCHAR(255) PRIMARY KEY, request_id VARCHAR(64))");
                    TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
                    TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
                    OutboxMessage paid = new OutboxMessage(OutboxMessage.id("R" + run, "paid"), exchange, "order.paid",
                            "{\"orderNo\":\"R" + run + "\"}", Map.of("X-Request-ID", "req-" + run));
                    transactions.executeWithoutResult(status -> outbox.record(paid));
                    transactions.executeWithoutResult(status -> outbox.record(paid));
                    try {
                        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM ledger", Long.class) == 1);
                        assertThat(jdbc.queryForObject("SELECT request_id FROM ledger", String.class)).isEqualTo("req-" + run);
                        // the broker's confirm may reach the relay after the consumer had the message
                        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(jdbc.queryForObject(
                                "SELECT status FROM onlyonce_message_log", String.class)).isEqualTo("SUCCESS"));
                        assertThat(context.getBean(OnlyOnceStatistics.class).count("message", "sent")).isEqualTo(1);
                        RabbitAdmin admin = context.getBean(RabbitAdmin.class);
                        assertThat(admin.getQueueInfo(queue)).isNotNull();
                        assertThat(admin.getQueueInfo(queue + ".dlq")).as("its dead-letter queue").isNotNull();

                        // a message without an id, dead-lettered by the listener itself, is counted as well
                        context.getBean(org.springframework.amqp.rabbit.core.RabbitTemplate.class).send(exchange, "order.paid",
                                new org.springframework.amqp.core.Message("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                        await().atMost(Duration.ofSeconds(30)).until(() -> context.getBean(OnlyOnceStatistics.class)
                                .count("message", "dead_lettered") == 1);
                        assertThat(context.getBean(OnlyOnceStatistics.class).byEndpoint())
                                .containsKey("consumer " + queue);
                        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM ledger", Long.class)).isEqualTo(1);
                    } finally {
                        RabbitAdmin admin = context.getBean(RabbitAdmin.class);
                        admin.deleteQueue(queue);
                        admin.deleteQueue(queue + ".dlq");
                        admin.deleteExchange(exchange);
                        admin.deleteExchange(queue + ".dlx");
                    }
                });
    }
}
