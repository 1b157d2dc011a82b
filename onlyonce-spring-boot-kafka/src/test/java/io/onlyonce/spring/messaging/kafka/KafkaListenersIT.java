package io.onlyonce.spring.messaging.kafka;

import static io.onlyonce.spring.messaging.kafka.KafkaTestSupport.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code @KafkaListener} methods on OnlyOnce's container factories, on the real Kafka and
 * PostgreSQL: each message id takes effect once (the listener is not even called for a duplicate),
 * a listener's exception rolls back its effect and its inbox row, the record is tried
 * max-attempts times and then lies on {@code <topic>.DLT} with the reason, a record without a
 * message id goes there untried, and the records after them are consumed.
 */
class KafkaListenersIT {

    private @Nullable ConfigurableApplicationContext running;
    private @Nullable String database;
    private final String run = KafkaTestSupport.run();

    /** The listeners: each writes one effect row per call, and fails for a value starting with "fail". */
    @Component
    static class Listeners {
        final Map<String, AtomicInteger> recordCalls = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> batchCalls = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> committedBatchCalls = new ConcurrentHashMap<>();
        private final JdbcTemplate jdbc;

        Listeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @KafkaListener(topics = "${test.record-topic}", groupId = "${test.record-group}",
                containerFactory = "onlyOnceKafkaListenerContainerFactory")
        void onRecord(ConsumerRecord<String, String> record) {
            assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
            String id = header(record, "message-id");
            recordCalls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            jdbc.update("INSERT INTO effects (listener, message_id) VALUES ('record', ?)", id);
            if (record.value().startsWith("fail")) {
                throw new IllegalStateException("the points service refused " + id);
            }
        }

        @KafkaListener(topics = "${test.batch-topic}", groupId = "${test.batch-group}",
                containerFactory = "onlyOnceKafkaBatchListenerContainerFactory")
        void onBatch(List<ConsumerRecord<String, String>> records) {
            assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
            for (ConsumerRecord<String, String> record : records) {
                String id = header(record, "message-id");
                batchCalls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        committedBatchCalls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    }
                });
                jdbc.update("INSERT INTO effects (listener, message_id) VALUES ('batch', ?)", id);
                if (record.value().startsWith("fail")) {
                    throw new BatchListenerFailedException("the points service refused " + id, record);
                }
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listeners.class)
    static class App {
    }

    @AfterEach
    void stop() {
        if (running != null) {
            running.close();
        }
        if (database != null) {
            KafkaTestSupport.dropDatabase(database);
        }
        KafkaTestSupport.deleteTopicsStartingWith("oo-it-" + run);
    }

    @Test
    void recordAndBatchListenersTakeEachMessageOnceRollBackFailuresAndDeadLetterThem() throws Exception {
        String recordTopic = "oo-it-" + run + "-orders";
        String batchTopic = "oo-it-" + run + "-payments";
        KafkaTestSupport.createTopics(1, recordTopic, batchTopic);
        database = KafkaTestSupport.newDatabase();
        new JdbcTemplate(new org.springframework.jdbc.datasource.DriverManagerDataSource(
                KafkaTestSupport.PG + database, "postgres", "")).execute(
                "CREATE TABLE effects (listener VARCHAR(10), message_id VARCHAR(255))");
        List<String> arguments = KafkaTestSupport.arguments(database);
        arguments.addAll(List.of("--test.record-topic=" + recordTopic, "--test.batch-topic=" + batchTopic,
                "--test.record-group=points-" + run, "--test.batch-group=ledger-" + run,
                "--onlyonce.messaging.consumer.max-attempts=3", "--onlyonce.messaging.kafka.partitions=1"));
        running = new SpringApplicationBuilder(App.class).run(arguments.toArray(String[]::new));
        Listeners listeners = running.getBean(Listeners.class);
        JdbcTemplate jdbc = running.getBean(JdbcTemplate.class);

        // the dead-letter topics were created with the containers
        try (var admin = KafkaTestSupport.admin()) {
            assertThat(admin.listTopics().names().get()).contains(recordTopic + ".DLT", batchTopic + ".DLT");
        }

        try (KafkaProducer<String, String> producer = KafkaTestSupport.producer()) {
            for (String topic : List.of(recordTopic, batchTopic)) {
                KafkaTestSupport.send(producer, topic, "k1", "m1", "ok");
                KafkaTestSupport.send(producer, topic, "k2", "m2", "ok");
                KafkaTestSupport.send(producer, topic, "k1", "m1", "ok"); // a duplicate
                KafkaTestSupport.send(producer, topic, "k3", "m3", "fail"); // always throws
                KafkaTestSupport.send(producer, topic, "k4", "m4", "ok");
                KafkaTestSupport.send(producer, topic, "k2", "m2", "ok"); // a duplicate
                KafkaTestSupport.send(producer, topic, "k5", null, "ok"); // no message id
                KafkaTestSupport.send(producer, topic, "k6", "bad id", "ok"); // a malformed one
                KafkaTestSupport.send(producer, topic, "k7", "m5", "ok");
            }
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(jdbc.queryForList("SELECT message_id FROM effects WHERE listener = 'record' ORDER BY message_id",
                    String.class)).containsExactly("m1", "m2", "m4", "m5");
            assertThat(jdbc.queryForList("SELECT message_id FROM effects WHERE listener = 'batch' ORDER BY message_id",
                    String.class)).containsExactly("m1", "m2", "m4", "m5");
        });
        List<ConsumerRecord<String, String>> recordDead = KafkaTestSupport.readAll(recordTopic + ".DLT", 3,
                Duration.ofSeconds(30));
        List<ConsumerRecord<String, String>> batchDead = KafkaTestSupport.readAll(batchTopic + ".DLT", 3,
                Duration.ofSeconds(30));

        // the record listener: each id once, the failing one max-attempts times, nothing of it kept
        assertThat(listeners.recordCalls.get("m1")).hasValue(1);
        assertThat(listeners.recordCalls.get("m2")).hasValue(1);
        assertThat(listeners.recordCalls.get("m4")).hasValue(1);
        assertThat(listeners.recordCalls.get("m5")).hasValue(1);
        assertThat(listeners.recordCalls.get("m3")).hasValue(3);
        assertThat(listeners.recordCalls).doesNotContainKey(null);
        assertThat(jdbc.queryForList("SELECT message_id FROM onlyonce_inbox WHERE consumer = ? ORDER BY message_id",
                String.class, "points-" + run)).as("the failed attempts' inbox rows rolled back")
                .containsExactly("m1", "m2", "m4", "m5");
        assertDeadLetters(recordDead);

        // the batch listener: a failed batch is rolled back and delivered again whole, so the ids
        // sharing a batch with m3 were called again; committed, each id once and m3 never
        assertThat(listeners.committedBatchCalls).containsOnlyKeys("m1", "m2", "m4", "m5");
        listeners.committedBatchCalls.values().forEach(calls -> assertThat(calls).hasValue(1));
        assertThat(listeners.batchCalls.get("m3")).hasValue(3);
        assertThat(listeners.batchCalls).doesNotContainKey(null);
        assertThat(jdbc.queryForList("SELECT message_id FROM onlyonce_inbox WHERE consumer = ? ORDER BY message_id",
                String.class, "ledger-" + run)).containsExactly("m1", "m2", "m4", "m5");
        assertDeadLetters(batchDead);

        OnlyOnceStatistics statistics = running.getBean(OnlyOnceStatistics.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(statistics.count("message", "duplicate_dropped")).isGreaterThanOrEqualTo(4);
            assertThat(statistics.count("message", "dead_lettered")).isEqualTo(6);
            assertThat(statistics.count("message", "processed")).isEqualTo(8);
        });
    }

    private static void assertDeadLetters(List<ConsumerRecord<String, String>> dead) {
        assertThat(dead).hasSize(3);
        ConsumerRecord<String, String> failed = dead.stream().filter(r -> "k3".equals(r.key())).findFirst().orElseThrow();
        assertThat(header(failed, "message-id")).isEqualTo("m3");
        assertThat(header(failed, KafkaDeadLetters.REASON_HEADER)).contains("the points service refused m3");
        assertThat(header(failed, "kafka_dlt-exception-message")).contains("the points service refused m3");
        assertThat(failed.value()).isEqualTo("fail");
        for (String key : List.of("k5", "k6")) {
            ConsumerRecord<String, String> invalid = dead.stream().filter(r -> key.equals(r.key())).findFirst().orElseThrow();
            assertThat(header(invalid, KafkaDeadLetters.REASON_HEADER)).as("the DeliveryPolicy's reason")
                    .isEqualTo("k5".equals(key) ? "missing message id"
                            : "malformed message id (not 1 to 255 visible ASCII characters)");
        }
    }
}
