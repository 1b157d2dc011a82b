package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.MessageStatus;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every effect exactly once through the real broker and PostgreSQL: {@link KafkaCluster#MESSAGES}
 * messages published by the relay, 30 % of them published a second time by another producer (the
 * same id, as a relay re-sending after a lost acknowledgement would), and the consuming JVM killed
 * with SIGKILL mid-stream and replaced by a new one. And dead letters across kills: a consumer JVM
 * ended at the broker's acknowledgement of a dead letter, before the record's offset is committed,
 * and started again (the same {@code group.instance.id}): with dead-letter marks the dead-letter
 * topic holds each record once, the id-less one and the one the consumer refused; without them every
 * JVM publishes the first one again; a JVM ended after the mark and before the publish loses none.
 */
class ExactlyOnceKafkaIT {

    static KafkaCluster kafka;
    static PgDatabase database;
    final List<Process> jvms = new ArrayList<>();

    @BeforeAll
    static void setUp() throws Exception {
        kafka = KafkaCluster.shared();
        database = PgDatabase.create();
    }

    @AfterAll
    static void tearDown() throws Exception {
        database.close();
        kafka.close();
    }

    @AfterEach
    void killLeftovers() {
        jvms.forEach(Process::destroyForcibly);
    }

    private static Process consumerJvm(String topic, String name, String log) throws Exception {
        Process process = jvm(log, List.of("-Xmx256m"), ConsumerMain.class, kafka.bootstrap, database.url, topic, name,
                "3", "1");
        File file = Path.of("target", log).toFile();
        KafkaCluster.await("the consumer JVM started", Duration.ofSeconds(30), () -> {
            if (!process.isAlive()) {
                throw new AssertionError("the consumer JVM exited: " + read(file));
            }
            return read(file).contains("STARTED");
        });
        return process;
    }

    /** A JVM on the test class path running {@code main}, its output in {@code target/<log>}. */
    private static Process jvm(String log, List<String> options, Class<?> main, String... arguments) throws Exception {
        Path output = Path.of("target", log);
        Files.createDirectories(output.getParent());
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp",
                System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.redirectOutput(output.toFile());
        return builder.start();
    }

    private static String read(File file) {
        try {
            return Files.readString(file.toPath());
        } catch (Exception e) {
            return "";
        }
    }

    /** The last STATS line of a consumer JVM: processed, duplicates. */
    private static long[] lastStats(String log) {
        Matcher stats = Pattern.compile("STATS KafkaConsumerStats\\[processed=(\\d+), duplicates=(\\d+)")
                .matcher(read(Path.of("target", log).toFile()));
        long[] last = {0, 0};
        while (stats.find()) {
            last[0] = Long.parseLong(stats.group(1));
            last[1] = Long.parseLong(stats.group(2));
        }
        return last;
    }

    private long effects() {
        return database.count("SELECT COUNT(*) FROM effects WHERE business_id LIKE 'order-%'");
    }

    @Test
    void duplicatesAndAKilledConsumerJvmStillTakeEachEffectExactlyOnce() throws Exception {
        int messages = KafkaCluster.MESSAGES;
        String topic = kafka.newTopic("exactly-once", 6);
        String name = KafkaCluster.unique("stock");
        List<OutboxMessage> all = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            all.add(new OutboxMessage(name + "-" + i, topic, "stock.deduct", "order-" + i,
                    Map.of("key", "customer-" + (i % 97), "X-Request-ID", "req-" + i)));
        }
        database.record(all);

        Process first = null;
        Process second = null;
        try (KafkaMessageTransport transport = KafkaMessageTransport.create(kafka.producerConfig());
                KafkaMessageTransport otherProducer = KafkaMessageTransport.create(kafka.producerConfig());
                OutboxRelay relay = new OutboxRelay(database.pool, JdbcDialect.POSTGRESQL, transport,
                        RelayConfig.custom().batchSize(100).pollInterval(Duration.ofMillis(100)).build())) {
            first = consumerJvm(topic, name, "exactly-once-first.log");
            relay.start();
            // the duplicates: 30 % of the ids published again by another producer, while the relay runs
            List<CompletableFuture<Void>> resent = new ArrayList<>();
            List<OutboxMessage> duplicates = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                if (i % 10 < 3) {
                    duplicates.add(all.get(i));
                }
            }
            for (int from = 0; from < duplicates.size(); from += 100) {
                resent.addAll(otherProducer.publishAll(duplicates.subList(from, Math.min(duplicates.size(), from + 100))));
            }

            KafkaCluster.await("a third of the effects", Duration.ofSeconds(60), () -> effects() >= messages / 3);
            first.destroyForcibly(); // SIGKILL: no commit, no close, records in hand lost with the JVM
            assertThat(first.waitFor(20, TimeUnit.SECONDS)).isTrue();
            long effectsAtKill = effects();
            second = consumerJvm(topic, name, "exactly-once-second.log");

            CompletableFuture.allOf(resent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            KafkaCluster.await("every row SUCCESS", Duration.ofSeconds(60),
                    () -> relay.countByStatus().getOrDefault(MessageStatus.SUCCESS, 0L) == messages);
            KafkaCluster.await("every effect and every offset committed", Duration.ofSeconds(120),
                    () -> effects() >= messages && kafka.fullyCommitted(name, topic));
            second.destroy(); // SIGTERM: a normal stop, which prints its last counts
            assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();

            assertThat(effectsAtKill).isLessThan(messages);
            assertThat(effects()).isEqualTo(messages);
            assertThat(database.count("SELECT MAX(count) FROM effects")).isEqualTo(1);
            assertThat(database.count("SELECT COUNT(*) FROM onlyonce_inbox WHERE consumer = '" + name + "'"))
                    .isEqualTo(messages);
            assertThat(kafka.endOffsetSum(topic)).isEqualTo(messages + duplicates.size());
            assertThat(kafka.fullyCommitted(name, topic)).as("committed offsets = end offsets").isTrue();
            assertThat(kafka.endOffsetSum(topic + ".DLT")).isZero();
            long[] secondStats = lastStats("exactly-once-second.log");
            assertThat(secondStats[0] + secondStats[1]).as("records the second JVM settled").isPositive();
            System.out.printf("exactly-once: %d messages, %d duplicates published, %d effects at the kill; "
                    + "second JVM processed %d, dropped %d duplicates%n", messages, duplicates.size(), effectsAtKill,
                    secondStats[0], secondStats[1]);
        } finally {
            if (first != null) {
                first.destroyForcibly();
            }
            if (second != null) {
                second.destroyForcibly();
            }
        }
    }

    @Test
    void withMarksEachDeadLetterReachesTheTopicOnceAcrossKills() throws Exception {
        List<String> original = deadLettersAfterTwoKills(true);
        assertThat(original).as("the original offsets of the dead letters").containsExactlyInAnyOrder("0", "1");
    }

    @Test
    void withoutMarksAKillAfterTheAcknowledgementPublishesTheRecordAgain() throws Exception {
        List<String> original = deadLettersAfterTwoKills(false);
        // each JVM publishes the first record's dead letter again: the two that ended at its acknowledgement, and the last
        assertThat(original).as("the original offsets of the dead letters").containsExactlyInAnyOrder("0", "0", "0", "1");
    }

    /**
     * Offset 0 without a message id, 1 refused for good, 2 processed; the first JVM ends at the
     * acknowledgement of 0's dead letter, the second at the next acknowledgement (0's again without
     * marks, else 1's), the third runs to the end.
     */
    private List<String> deadLettersAfterTwoKills(boolean marks) throws Exception {
        return deadLettersAfterKills(marks, "ack", 2);
    }

    @Test
    void aKillAfterTheMarkAndBeforeThePublishLosesNoDeadLetter() throws Exception {
        List<String> original = deadLettersAfterKills(true, "send", 1);
        assertThat(original).as("the original offsets of the dead letters").containsExactlyInAnyOrder("0", "1");
    }

    /**
     * The three records; {@code kills} JVMs each ended where {@code halt} says ({@code ack}: at the
     * first acknowledgement of a dead letter, {@code send}: before the first dead letter is sent),
     * then one that runs to the end.
     *
     * @return the original offset of each dead letter on the topic
     */
    private List<String> deadLettersAfterKills(boolean marks, String halt, int kills) throws Exception {
        String topic = kafka.newTopic("dlt-kill", 1);
        String name = KafkaCluster.unique("points");
        try (KafkaProducer<String, byte[]> producer = kafka.rawProducer()) {
            producer.send(new ProducerRecord<>(topic, "k0", bytes("no id"))).get(10, TimeUnit.SECONDS);
            ProducerRecord<String, byte[]> refused = new ProducerRecord<>(topic, "k1", bytes("reject"));
            refused.headers().add(KafkaMessageHeaders.MESSAGE_ID, bytes(name + "-1"));
            producer.send(refused).get(10, TimeUnit.SECONDS);
            ProducerRecord<String, byte[]> fine = new ProducerRecord<>(topic, "k2", bytes(name + "-order"));
            fine.headers().add(KafkaMessageHeaders.MESSAGE_ID, bytes(name + "-2"));
            producer.send(fine).get(10, TimeUnit.SECONDS);
        }

        for (int kill = 1; kill <= kills; kill++) {
            Process halted = deadLetterJvm(topic, name, marks, halt, name + "-" + kill + ".log");
            assertThat(halted.waitFor(60, TimeUnit.SECONDS)).as("JVM " + kill + " ended").isTrue();
            assertThat(halted.exitValue()).as("JVM " + kill + " ended at a dead letter (" + halt + "): "
                    + read(Path.of("target", name + "-" + kill + ".log").toFile())).isEqualTo(HaltingInterceptor.STATUS);
        }
        Process last = deadLetterJvm(topic, name, marks, "none", name + "-last.log");
        KafkaCluster.await("every offset committed", Duration.ofSeconds(60), () -> kafka.fullyCommitted(name, topic));
        last.destroy();
        assertThat(last.waitFor(30, TimeUnit.SECONDS)).isTrue();

        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE business_id = '" + name + "-order'"))
                .as("the record after the dead letters, processed once").isEqualTo(1);
        List<ConsumerRecord<String, byte[]>> letters = kafka.readAll(topic + ".DLT", marks ? 2 : 2 + kills,
                Duration.ofSeconds(20));
        List<String> offsets = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> letter : letters) {
            assertThat(header(letter, KafkaDeadLetterHeaders.CONSUMER)).isEqualTo(name);
            offsets.add(header(letter, KafkaDeadLetterHeaders.ORIGINAL_OFFSET));
        }
        return offsets;
    }

    private Process deadLetterJvm(String topic, String name, boolean marks, String halt, String log) throws Exception {
        Process process = jvm(log, List.of("-Xmx128m", "-Donlyonce.test.halt=" + halt), DeadLetterConsumerMain.class,
                kafka.bootstrap, database.url, topic, name, name + "-instance", Boolean.toString(marks));
        jvms.add(process);
        return process;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static @Nullable String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
