package io.onlyonce.spring.messaging.kafka;

import static io.onlyonce.spring.messaging.kafka.KafkaTestSupport.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.messaging.PermanentMessageFailure;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.stereotype.Component;

/**
 * One {@code DeliveryPolicy} for every consumer: the same records, sent to a
 * {@link ConsumerDefinition} on the Kafka module's consumer and to a record and a batch
 * {@code @KafkaListener} on OnlyOnce's factories, on the real Kafka and PostgreSQL, end the same
 * way on all three: an id-less and a malformed record dead-lettered untried with the same reason, a
 * duplicate dropped, a handler that keeps failing tried max-attempts times and dead-lettered as
 * {@code failed 3 attempts: …}, a {@link PermanentMessageFailure} dead-lettered at once with its
 * reason, the same effects and inbox rows, the same counts.
 */
class KafkaListenerPolicyIT {

    private @Nullable ConfigurableApplicationContext running;
    private @Nullable String database;
    private final String run = KafkaTestSupport.run();

    /** What each consumer's handler does with a value: "fail" throws, "reject" is permanent, else one effect row. */
    static void handle(String consumer, @Nullable String id, String value, Map<String, AtomicInteger> calls) {
        calls.computeIfAbsent(consumer + ":" + id, k -> new AtomicInteger()).incrementAndGet();
        if (value.equals("fail")) {
            throw new IllegalStateException("the points service refused " + id);
        }
        if (value.equals("reject")) {
            throw new PermanentMessageFailure("order " + id + " cancelled");
        }
    }

    static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Listeners.class)
    static class App {
        @Bean
        ConsumerDefinition plainConsumer(Environment environment) {
            String name = environment.getRequiredProperty("test.plain");
            return ConsumerDefinition.of(name, environment.getRequiredProperty("test.plain-topic"), "order.*",
                    (message, connection) -> {
                        try (PreparedStatement insert = connection.prepareStatement(
                                "INSERT INTO effects (consumer, message_id) VALUES (?, ?)")) {
                            insert.setString(1, name);
                            insert.setString(2, message.id());
                            insert.executeUpdate();
                        }
                        handle(name, message.id(), message.payload(), CALLS);
                    });
        }
    }

    @Component
    static class Listeners {
        private final JdbcTemplate jdbc;
        private final String recordGroup;
        private final String batchGroup;

        Listeners(JdbcTemplate jdbc, Environment environment) {
            this.jdbc = jdbc;
            this.recordGroup = environment.getRequiredProperty("test.record");
            this.batchGroup = environment.getRequiredProperty("test.batch");
        }

        @KafkaListener(topics = "${test.record-topic}", groupId = "${test.record}",
                containerFactory = "onlyOnceKafkaListenerContainerFactory")
        void onRecord(ConsumerRecord<String, String> record) {
            String id = header(record, "message-id");
            jdbc.update("INSERT INTO effects (consumer, message_id) VALUES (?, ?)", recordGroup, id);
            handle(recordGroup, id, record.value(), CALLS);
        }

        @KafkaListener(topics = "${test.batch-topic}", groupId = "${test.batch}",
                containerFactory = "onlyOnceKafkaBatchListenerContainerFactory")
        void onBatch(List<ConsumerRecord<String, String>> records) {
            for (ConsumerRecord<String, String> record : records) {
                String id = header(record, "message-id");
                jdbc.update("INSERT INTO effects (consumer, message_id) VALUES (?, ?)", batchGroup, id);
                try {
                    handle(batchGroup, id, record.value(), CALLS);
                } catch (RuntimeException e) {
                    throw new BatchListenerFailedException("record " + id + " failed", e, record);
                }
            }
        }
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
        CALLS.clear();
    }

    @Test
    void idLessMalformedDuplicateFailingAndRejectedRecordsEndTheSameWayOnTheListenersAsOnThePlainConsumer()
            throws Exception {
        String plain = "plain-" + run;
        String record = "record-" + run;
        String batch = "batch-" + run;
        Map<String, String> topics = Map.of(plain, "oo-it-" + run + "-plain", record, "oo-it-" + run + "-record",
                batch, "oo-it-" + run + "-batch");
        KafkaTestSupport.createTopics(1, topics.values().toArray(String[]::new));
        database = KafkaTestSupport.newDatabase();
        new JdbcTemplate(new DriverManagerDataSource(KafkaTestSupport.PG + database, "postgres", ""))
                .execute("CREATE TABLE effects (consumer VARCHAR(64), message_id VARCHAR(255))");
        List<String> arguments = KafkaTestSupport.arguments(database);
        arguments.addAll(List.of("--onlyonce.messaging.transport=kafka", "--onlyonce.messaging.kafka.partitions=1",
                "--onlyonce.messaging.consumer.workers=1", "--onlyonce.messaging.consumer.max-attempts=3",
                "--onlyonce.messaging.kafka.retry-delay=100ms",
                "--onlyonce.messaging.kafka.group-instance-id=host-" + run,
                "--test.plain=" + plain, "--test.record=" + record, "--test.batch=" + batch,
                "--test.plain-topic=" + topics.get(plain), "--test.record-topic=" + topics.get(record),
                "--test.batch-topic=" + topics.get(batch)));
        running = new SpringApplicationBuilder(App.class).run(arguments.toArray(String[]::new));

        try (KafkaProducer<String, String> producer = KafkaTestSupport.producer()) {
            for (String topic : topics.values()) {
                send(producer, topic, "k1", "m1", "ok");
                send(producer, topic, "k2", "m1", "ok"); // a duplicate
                send(producer, topic, "k3", null, "ok"); // no message id
                send(producer, topic, "k4", "bad id", "ok"); // a malformed one
                send(producer, topic, "k5", "m5", "fail"); // the handler always throws
                send(producer, topic, "k6", "m6", "reject"); // a permanent failure
                send(producer, topic, "k7", "m7", "ok");
            }
        }

        Map<String, String> reasons = Map.of(
                "k3", "missing message id",
                "k4", "malformed message id (not 1 to 255 visible ASCII characters)",
                "k5", "failed 3 attempts: IllegalStateException: the points service refused m5",
                "k6", "order m6 cancelled");
        JdbcTemplate jdbc = running.getBean(JdbcTemplate.class);
        for (String consumer : List.of(plain, record, batch)) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(jdbc.queryForList(
                    "SELECT message_id FROM effects WHERE consumer = ? ORDER BY message_id", String.class, consumer))
                    .as(consumer + ": each effect once, none of the failed attempts kept").containsExactly("m1", "m7"));
            List<ConsumerRecord<String, String>> dead = KafkaTestSupport.readAll(topics.get(consumer) + ".DLT", 4,
                    Duration.ofSeconds(30));
            Map<String, String> deadReasons = new TreeMap<>();
            for (ConsumerRecord<String, String> letter : dead) {
                deadReasons.put(letter.key(), header(letter, "x-onlyonce-dead-reason"));
                assertThat(header(letter, "x-onlyonce-consumer")).isEqualTo(consumer);
            }
            assertThat(deadReasons).as(consumer + ": the dead letters and their reasons").isEqualTo(new TreeMap<>(reasons));
            assertThat(dead.stream().filter(letter -> "k5".equals(letter.key())).findFirst().orElseThrow().value())
                    .isEqualTo("fail");
            assertThat(jdbc.queryForList("SELECT message_id FROM onlyonce_inbox WHERE consumer = ? ORDER BY message_id",
                    String.class, consumer)).as(consumer + ": the inbox").containsExactly("m1", "m7");
            assertThat(CALLS.get(consumer + ":m5")).as(consumer + ": the failing handler, max-attempts times").hasValue(3);
            assertThat(CALLS.get(consumer + ":m6")).as(consumer + ": the permanent failure, once").hasValue(1);
            assertThat(CALLS).as(consumer + ": the unusable records never reach the handler")
                    .doesNotContainKeys(consumer + ":null", consumer + ":bad id");
        }
        // static membership: each group's one consumer has an instance id of its own made from the property
        try (var admin = KafkaTestSupport.admin()) {
            Map<String, List<String>> instances = new TreeMap<>();
            admin.describeConsumerGroups(List.of(plain, record, batch)).all().get(30, TimeUnit.SECONDS)
                    .forEach((group, description) -> instances.put(group, description.members().stream()
                            .map(member -> member.groupInstanceId().orElse("none")).toList()));
            assertThat(instances.get(plain)).containsExactly("host-" + run + "-1");
            assertThat(instances.get(record)).singleElement().asString().startsWith("host-" + run + "-")
                    .endsWith("-0");
            assertThat(instances.get(batch)).singleElement().asString().startsWith("host-" + run + "-")
                    .endsWith("-0").isNotEqualTo(instances.get(record).get(0));
        }
        assertThat(CALLS.get(plain + ":m1")).hasValue(1);
        assertThat(CALLS.get(record + ":m1")).hasValue(1);

        OnlyOnceStatistics statistics = running.getBean(OnlyOnceStatistics.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Map<String, Map<String, Long>> counts = statistics.byEndpoint();
            for (String consumer : List.of(plain, record, batch)) {
                Map<String, Long> those = counts.get("consumer " + consumer);
                assertThat(those).as(consumer).containsEntry("processed", 2L).containsEntry("dead_lettered", 4L);
                // a batch rolled back is intercepted again: its duplicate is dropped on every delivery
                assertThat(those.get("duplicate_dropped")).as(consumer).isGreaterThanOrEqualTo(1L);
            }
            assertThat(counts.get("consumer " + plain)).containsEntry("duplicate_dropped", 1L);
            assertThat(counts.get("consumer " + record)).containsEntry("duplicate_dropped", 1L);
        });
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String key, @Nullable String id,
            String value) throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, value);
        if (id != null) {
            record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
        }
        record.headers().add("message-type", "order.paid".getBytes(StandardCharsets.UTF_8));
        producer.send(record).get(30, TimeUnit.SECONDS);
    }
}
