package io.onlyonce.spring.messaging.kafka;

import static io.onlyonce.spring.messaging.kafka.KafkaTestSupport.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.messaging.PermanentMessageFailure;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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

    /** While set, the listeners fail for the value "hold". */
    static final AtomicBoolean HOLD = new AtomicBoolean();

    /**
     * The listeners: each writes one effect row per call, fails for a value starting with "fail" (and
     * for "hold" while {@link #HOLD} is set), and refuses "reject" for good.
     */
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
            if (record.value().equals("reject")) {
                throw new PermanentMessageFailure("order " + id + " cancelled");
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
                if (record.value().startsWith("fail") || (record.value().equals("hold") && HOLD.get())) {
                    throw new BatchListenerFailedException("the points service refused " + id, record);
                }
                if (record.value().equals("reject")) {
                    throw new BatchListenerFailedException("record " + id + " refused",
                            new PermanentMessageFailure("order " + id + " cancelled"), record);
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
        List<String> arguments = prepare(recordTopic, batchTopic, "points-" + run, "ledger-" + run, 3);
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

    /**
     * A record listener's last record dead-lettered (its offset left uncommitted: nothing after it
     * moves the group past it), and a batch whose id-less and refused records were dead-lettered
     * while the rest keeps failing, when the application stops; started again, both are delivered
     * again, and each record is on its dead-letter topic once.
     */
    @Test
    void aRecordDeadLetteredBeforeARestartIsNotPublishedAgainAfterIt() throws Exception {
        String recordTopic = "oo-it-" + run + "-refunds";
        String batchTopic = "oo-it-" + run + "-settlements";
        List<String> arguments = prepare(recordTopic, batchTopic, "refunds-" + run, "settlements-" + run, 1000);
        HOLD.set(true);
        try (KafkaProducer<String, String> producer = KafkaTestSupport.producer()) {
            KafkaTestSupport.send(producer, recordTopic, "k1", "r1", "ok");
            KafkaTestSupport.send(producer, recordTopic, "k2", "r2", "reject");
            KafkaTestSupport.send(producer, batchTopic, "k1", null, "no id");
            KafkaTestSupport.send(producer, batchTopic, "k2", "b2", "reject");
            KafkaTestSupport.send(producer, batchTopic, "k3", "b3", "hold");
        }
        running = new SpringApplicationBuilder(App.class).run(arguments.toArray(String[]::new));
        Listeners first = running.getBean(Listeners.class);
        assertThat(KafkaTestSupport.readAll(recordTopic + ".DLT", 1, Duration.ofSeconds(30))).hasSize(1);
        assertThat(KafkaTestSupport.readAll(batchTopic + ".DLT", 2, Duration.ofSeconds(30))).hasSize(2);
        int held = first.batchCalls.get("b3").get();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(first.batchCalls.get("b3").get()).as("the batch failing again after its dead letters")
                        .isGreaterThan(held));
        running.close();

        HOLD.set(false);
        running = new SpringApplicationBuilder(App.class).run(arguments.toArray(String[]::new));
        Listeners second = running.getBean(Listeners.class);
        JdbcTemplate jdbc = running.getBean(JdbcTemplate.class);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(jdbc.queryForList("SELECT message_id FROM onlyonce_inbox WHERE consumer = ?", String.class,
                    "settlements-" + run)).as("the batch committed after the restart").containsExactly("b3");
            assertThat(second.recordCalls.get("r2")).as("the dead-lettered record delivered again").hasValue(1);
            assertThat(second.batchCalls.get("b2")).as("the refused record of the batch delivered again").hasValue(1);
        });
        assertThat(KafkaTestSupport.readAll(recordTopic + ".DLT", 2, Duration.ofSeconds(5)))
                .extracting(ConsumerRecord::key).as("each record once on the dead-letter topic").containsExactly("k2");
        assertThat(KafkaTestSupport.readAll(batchTopic + ".DLT", 3, Duration.ofSeconds(5)))
                .extracting(ConsumerRecord::key).as("each record once on the dead-letter topic")
                .containsExactlyInAnyOrder("k1", "k2");
        assertThat(jdbc.queryForList("SELECT message_id FROM effects WHERE listener = 'record'", String.class))
                .as("the record before the dead letter, once").containsExactly("r1");
    }

    /** The topics, a database with the effects table, and the application's arguments for them. */
    private List<String> prepare(String recordTopic, String batchTopic, String recordGroup, String batchGroup,
            int maxAttempts) throws Exception {
        KafkaTestSupport.createTopics(1, recordTopic, batchTopic);
        database = KafkaTestSupport.newDatabase();
        new JdbcTemplate(new org.springframework.jdbc.datasource.DriverManagerDataSource(
                KafkaTestSupport.PG + database, "postgres", "")).execute(
                "CREATE TABLE effects (listener VARCHAR(10), message_id VARCHAR(255))");
        List<String> arguments = KafkaTestSupport.arguments(database);
        arguments.addAll(List.of("--test.record-topic=" + recordTopic, "--test.batch-topic=" + batchTopic,
                "--test.record-group=" + recordGroup, "--test.batch-group=" + batchGroup,
                "--onlyonce.messaging.consumer.max-attempts=" + maxAttempts, "--onlyonce.messaging.kafka.partitions=1"));
        return arguments;
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
