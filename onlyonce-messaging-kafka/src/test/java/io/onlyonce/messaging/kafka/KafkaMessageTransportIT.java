package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.MessageStatus;
import io.onlyonce.messaging.OutboxEntry;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The transport on the real broker, alone and under the relay on PostgreSQL. */
class KafkaMessageTransportIT {

    static KafkaCluster kafka;
    static PgDatabase database;

    @BeforeAll
    static void setUp() throws Exception {
        kafka = KafkaCluster.shared();
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
    }

    @Test
    void aRecordReachesTheTopicWithItsKeyHeadersAndBody() throws Exception {
        String topic = kafka.newTopic("transport", 3);
        try (KafkaMessageTransport transport = KafkaMessageTransport.create(kafka.producerConfig())) {
            transport.publish(new OutboxMessage("order-1_paid", topic, "order.paid", "{\"order\":\"1\"}",
                    Map.of("X-Request-ID", "req-1", "key", "order-1"))).get(10, TimeUnit.SECONDS);
            transport.publish(new OutboxMessage("order-2_paid", topic, "order.paid", "{\"order\":\"2\"}",
                    Map.of())).get(10, TimeUnit.SECONDS);
        }
        List<ConsumerRecord<String, byte[]>> records = kafka.readAll(topic, 2, Duration.ofSeconds(20));
        assertThat(records).hasSize(2);
        ConsumerRecord<String, byte[]> first = records.stream().filter(r -> r.key().equals("order-1")).findFirst().orElseThrow();
        assertThat(first.topic()).isEqualTo(topic);
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":\"1\"}");
        Map<String, String> headers = new HashMap<>();
        for (Header header : first.headers()) {
            headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
        }
        assertThat(headers).containsEntry("message-id", "order-1_paid").containsEntry("message-type", "order.paid")
                .containsEntry("content-type", "application/json").containsEntry("X-Request-ID", "req-1")
                .doesNotContainKey("key");
        assertThat(records).anySatisfy(r -> assertThat(r.key()).isEqualTo("order-2_paid"));
    }

    @Test
    void aMissingTopicFailsWithinTheSendTimeoutAndTheRelayKeepsTheRowPrepared() throws Exception {
        String missing = KafkaCluster.unique("missing");
        Duration sendTimeout = Duration.ofSeconds(2);
        try (KafkaMessageTransport transport = KafkaMessageTransport.create(kafka.producerConfig(), sendTimeout)) {
            long start = System.nanoTime();
            CompletableFuture<Void> future = transport.publish(new OutboxMessage("lost-1", missing, "x", "{}", Map.of()));
            assertThatThrownBy(() -> future.get(sendTimeout.toMillis() * 3, TimeUnit.MILLISECONDS))
                    .cause().isInstanceOfSatisfying(KafkaPublishException.class, e -> {
                        assertThat(e.reason()).isEqualTo(KafkaPublishException.Reason.TOPIC_NOT_FOUND);
                        assertThat(e.getMessage()).contains(missing);
                        assertThat(e.topic()).isEqualTo(missing);
                        assertThat(e.messageId()).isEqualTo("lost-1");
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(sendTimeout.multipliedBy(2));

            // three messages of the batch to the missing topic cost one metadata wait, the good one is sent
            String good = kafka.newTopic("good", 1);
            database.record(List.of(new OutboxMessage("row-missing-1", missing, "x", "{}", Map.of()),
                    new OutboxMessage("row-missing-2", missing, "x", "{}", Map.of()),
                    new OutboxMessage("row-good", good, "x", "{}", Map.of()),
                    new OutboxMessage("row-missing-3", missing, "x", "{}", Map.of())));
            OutboxRelay relay = new OutboxRelay(database.pool, JdbcDialect.POSTGRESQL, transport, RelayConfig.custom()
                    .publishTimeout(Duration.ofSeconds(10)).lease(Duration.ofSeconds(30)).build());
            start = System.nanoTime();
            assertThat(relay.pollOnce()).isEqualTo(4);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(sendTimeout.multipliedBy(2));
            for (String id : List.of("row-missing-1", "row-missing-2", "row-missing-3")) {
                OutboxEntry entry = relay.find(id).orElseThrow();
                assertThat(entry.status()).isEqualTo(MessageStatus.PREPARED);
                assertThat(entry.lastError()).contains(missing).contains("not found");
            }
            assertThat(relay.find("row-good").orElseThrow().status()).isEqualTo(MessageStatus.SUCCESS);

            // remembered for a while: the next batch does not wait for the missing topic's metadata again,
            // so a message nobody can route does not hold up the others on every retry
            database.record(List.of(new OutboxMessage("row-missing-4", missing, "x", "{}", Map.of()),
                    new OutboxMessage("row-good-2", good, "x", "{}", Map.of())));
            start = System.nanoTime();
            assertThat(relay.pollOnce()).isEqualTo(2);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no metadata wait").isLessThan(sendTimeout);
            assertThat(relay.find("row-missing-4").orElseThrow().lastError()).contains(missing).contains("not found");
            assertThat(relay.find("row-good-2").orElseThrow().status()).isEqualTo(MessageStatus.SUCCESS);
        }
    }

    @Test
    void aBatchOfFiveHundredRowsIsHandedToTheProducerWithoutAFlushAndMarkedOnItsAcknowledgements() throws Exception {
        String topic = kafka.newTopic("batch", 3);
        AtomicInteger flushes = new AtomicInteger();
        AtomicInteger sends = new AtomicInteger();
        KafkaProducer<String, byte[]> real = new KafkaProducer<>(
                ProducerSettings.of(kafka.producerConfig(), Duration.ofSeconds(10)));
        @SuppressWarnings("unchecked")
        Producer<String, byte[]> counting = (Producer<String, byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                    if (method.getName().equals("flush")) {
                        flushes.incrementAndGet();
                    } else if (method.getName().equals("send")) {
                        sends.incrementAndGet();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        List<OutboxMessage> messages = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            messages.add(new OutboxMessage("batch-" + i, topic, "order.paid", "{\"n\":" + i + "}", Map.of("key", "k" + (i % 7))));
        }
        database.record(messages);
        try (KafkaMessageTransport transport = new KafkaMessageTransport(counting, Duration.ofSeconds(10))) {
            OutboxRelay relay = new OutboxRelay(database.pool, JdbcDialect.POSTGRESQL, transport,
                    RelayConfig.custom().batchSize(500).build());
            assertThat(relay.pollOnce()).isEqualTo(500);
            assertThat(flushes).as("the producer sends after linger.ms; a flush would wait for every batch in flight").hasValue(0);
            assertThat(sends).hasValue(500);
            assertThat(database.count("SELECT COUNT(*) FROM onlyonce_message_log WHERE id LIKE 'batch-%' AND status = 'SUCCESS'"))
                    .isEqualTo(500);
        } finally {
            real.close();
        }
        List<ConsumerRecord<String, byte[]>> records = kafka.readAll(topic, 500, Duration.ofSeconds(30));
        Set<String> ids = new HashSet<>();
        records.forEach(r -> ids.add(new String(r.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8)));
        assertThat(records).hasSize(500);
        assertThat(ids).hasSize(500);
    }
}
