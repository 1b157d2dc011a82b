package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.MessageStatus;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay and a consumer while a broker of the test's own ({@link PrivateBroker}) is stopped and
 * started again: nothing is lost, every row ends SUCCESS, every message takes effect once.
 */
class KafkaBrokerOutageIT {

    static PrivateBroker broker;
    static KafkaCluster kafka;
    static PgDatabase database;

    @BeforeAll
    static void setUp() throws Exception {
        broker = PrivateBroker.start();
        kafka = KafkaCluster.at(broker.bootstrap());
        database = PgDatabase.create();
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (database != null) {
            database.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static List<OutboxMessage> messages(String topic, int from, int to) {
        List<OutboxMessage> messages = new ArrayList<>();
        for (int i = from; i < to; i++) {
            messages.add(new OutboxMessage(topic + "-" + i, topic, "order.paid", topic + "-b" + i, Map.of("key", "k" + (i % 10))));
        }
        return messages;
    }

    private static long rows(String topic, MessageStatus status) {
        return database.count("SELECT COUNT(*) FROM onlyonce_message_log WHERE exchange = '" + topic + "' AND status = '"
                + status + "'");
    }

    @Test
    void everyRowIsSentAndConsumedOnceAfterTheBrokerComesBack() throws Exception {
        String topic = kafka.newTopic("outage", 3);
        String name = KafkaCluster.unique("outage");
        int half = 200;
        RelayConfig config = RelayConfig.custom().batchSize(50).pollInterval(Duration.ofMillis(100))
                .publishTimeout(Duration.ofSeconds(4)).lease(Duration.ofSeconds(20)).maxAttempts(1_000)
                .initialBackoff(Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(1)).build();
        try (KafkaMessageTransport transport = KafkaMessageTransport.create(kafka.producerConfig(), Duration.ofSeconds(2));
                OutboxRelay relay = new OutboxRelay(database.pool, JdbcDialect.POSTGRESQL, transport, config);
                IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(database.consumer(name),
                        kafka.consumerConfig(), kafka.producerConfig()).topic(topic).threads(2).build()) {
            relay.start();
            consumer.start();
            database.record(messages(topic, 0, half));
            relay.wakeUp();
            KafkaCluster.await("the first half SUCCESS", Duration.ofSeconds(30), () -> rows(topic, MessageStatus.SUCCESS) == half);

            long stoppedAt = System.nanoTime();
            broker.stop();
            try {
                database.record(messages(topic, half, 2 * half));
                relay.wakeUp();
                KafkaCluster.await("publishes failing while the broker is down", Duration.ofSeconds(30), () -> database.count(
                        "SELECT COUNT(*) FROM onlyonce_message_log WHERE exchange = '" + topic
                                + "' AND status = 'PREPARED' AND attempts > 0 AND last_error IS NOT NULL") > 0);
                assertThat(rows(topic, MessageStatus.FAILED)).isZero();
            } finally {
                broker.restart();
            }
            System.out.printf("outage: broker down for %d ms%n", (System.nanoTime() - stoppedAt) / 1_000_000);

            KafkaCluster.await("every row SUCCESS after the restart", Duration.ofSeconds(90),
                    () -> rows(topic, MessageStatus.SUCCESS) == 2 * half);
            KafkaCluster.await("every message consumed and committed", Duration.ofSeconds(90),
                    () -> kafka.fullyCommitted(name, topic));
        }
        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE business_id LIKE '" + topic + "-b%'")).isEqualTo(2 * half);
        assertThat(database.count("SELECT MAX(count) FROM effects WHERE business_id LIKE '" + topic + "-b%'")).isEqualTo(1);
        Map<String, Integer> ids = new HashMap<>();
        List<ConsumerRecord<String, byte[]>> records = kafka.readAll(topic, 2 * half, Duration.ofSeconds(30));
        for (ConsumerRecord<String, byte[]> record : records) {
            ids.merge(new String(record.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8), 1, Integer::sum);
        }
        assertThat(ids).hasSize(2 * half);
        System.out.printf("outage: %d records on the topic for %d messages%n", records.size(), 2 * half);
    }
}
