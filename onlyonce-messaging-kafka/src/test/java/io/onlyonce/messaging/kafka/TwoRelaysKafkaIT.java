package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.MessageStatus;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Two relays on one outbox table publishing to Kafka: once each in the normal path, again after a lost mark. */
class TwoRelaysKafkaIT {

    static KafkaCluster kafka;
    static PgDatabase database;
    static HikariDataSource secondPool;
    static KafkaMessageTransport transport;

    @BeforeAll
    static void setUp() throws Exception {
        kafka = KafkaCluster.shared();
        database = PgDatabase.create();
        secondPool = PgDatabase.pool(database.url, 4);
        transport = KafkaMessageTransport.create(kafka.producerConfig(), Duration.ofSeconds(5));
    }

    @AfterAll
    static void tearDown() throws Exception {
        transport.close();
        secondPool.close();
        database.close();
        kafka.close();
    }

    private static Map<String, Integer> idsOnTopic(String topic, int expected) {
        Map<String, Integer> ids = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : kafka.readAll(topic, expected, Duration.ofSeconds(30))) {
            ids.merge(new String(record.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8), 1, Integer::sum);
        }
        return ids;
    }

    @Test
    void twoRelaysOnOneTablePublishEveryRowExactlyOnce() throws Exception {
        String topic = kafka.newTopic("two-relays", 3);
        int messages = KafkaCluster.MESSAGES / 2;
        RelayConfig config = RelayConfig.custom().batchSize(50).pollInterval(Duration.ofMillis(50)).build();
        try (OutboxRelay left = new OutboxRelay(database.pool, JdbcDialect.POSTGRESQL, transport, config);
                OutboxRelay right = new OutboxRelay(secondPool, JdbcDialect.POSTGRESQL, transport, config)) {
            left.start();
            right.start();
            for (int from = 0; from < messages; from += 100) {
                List<OutboxMessage> chunk = new ArrayList<>();
                for (int i = from; i < Math.min(messages, from + 100); i++) {
                    chunk.add(new OutboxMessage(topic + "-" + i, topic, "order.paid", "b-" + i, Map.of()));
                }
                database.record(chunk);
                left.wakeUp();
                right.wakeUp();
            }
            KafkaCluster.await("every row SUCCESS", Duration.ofSeconds(60), () -> database.count(
                    "SELECT COUNT(*) FROM onlyonce_message_log WHERE exchange = '" + topic + "' AND status = 'SUCCESS'") == messages);
            assertThat(left.stats().sent()).isPositive();
            assertThat(right.stats().sent()).isPositive();
            assertThat(left.stats().sent() + right.stats().sent()).isEqualTo(messages);
        }
        Map<String, Integer> ids = idsOnTopic(topic, messages);
        assertThat(ids).hasSize(messages);
        assertThat(ids.values()).allMatch(count -> count == 1);
    }

    @Test
    void aRelayThatDiesBetweenTheAcknowledgementAndItsMarkHasTheRowSentAgainAndTheConsumerDropsIt() throws Exception {
        String topic = kafka.newTopic("lost-mark", 1);
        String name = KafkaCluster.unique("lost-mark");
        database.record(List.of(new OutboxMessage(name + "-1", topic, "order.paid", name + "-b1", Map.of())));
        AtomicBoolean down = new AtomicBoolean();
        DataSource dying = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && down.get()) {
                        throw new SQLTransientConnectionException("the relay died (the test cut its database)", "08001");
                    }
                    try {
                        return method.invoke(database.pool, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        // lets the publish through, waits for the broker's acknowledgement, then cuts the relay off its table
        MessageTransport dyingAfterPublish = new MessageTransport() {
            @Override
            public CompletableFuture<Void> publish(OutboxMessage message) {
                return publishAll(List.of(message)).get(0);
            }

            @Override
            public List<CompletableFuture<Void>> publishAll(List<OutboxMessage> messages) {
                List<CompletableFuture<Void>> futures = transport.publishAll(messages);
                CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).orTimeout(10, TimeUnit.SECONDS).join();
                down.set(true);
                return futures;
            }
        };
        RelayConfig config = RelayConfig.custom().lease(Duration.ofSeconds(3)).publishTimeout(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(100)).build();
        OutboxRelay dead = new OutboxRelay(dying, JdbcDialect.POSTGRESQL, dyingAfterPublish, config);
        assertThat(dead.pollOnce()).isEqualTo(1);
        assertThat(database.count("SELECT COUNT(*) FROM onlyonce_message_log WHERE id = '" + name + "-1' AND status = 'SENDING'"))
                .as("published, never marked").isEqualTo(1);

        try (OutboxRelay survivor = new OutboxRelay(secondPool, JdbcDialect.POSTGRESQL, transport, config);
                IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(database.consumer(name),
                        kafka.consumerConfig(), kafka.producerConfig()).topic(topic).build()) {
            consumer.start();
            survivor.start();
            KafkaCluster.await("the row SUCCESS after the lease", Duration.ofSeconds(30),
                    () -> survivor.find(name + "-1").map(e -> e.status() == MessageStatus.SUCCESS).orElse(false));
            KafkaCluster.await("both copies consumed", Duration.ofSeconds(30), () -> kafka.fullyCommitted(name, topic));
            assertThat(survivor.find(name + "-1").orElseThrow().attempts()).isEqualTo(2);
            assertThat(consumer.stats().processed()).isEqualTo(1);
            assertThat(consumer.stats().duplicates()).isEqualTo(1);
        }
        assertThat(idsOnTopic(topic, 2)).containsEntry(name + "-1", 2);
        assertThat(database.count("SELECT count FROM effects WHERE business_id = '" + name + "-b1'")).isEqualTo(1);
    }
}
