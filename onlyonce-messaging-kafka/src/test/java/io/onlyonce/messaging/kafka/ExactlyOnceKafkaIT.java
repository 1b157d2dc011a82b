package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.MessageStatus;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.messaging.RelayConfig;
import java.io.File;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every effect exactly once through the real broker and PostgreSQL: {@link KafkaCluster#MESSAGES}
 * messages published by the relay, 30 % of them published a second time by another producer (the
 * same id, as a relay re-sending after a lost acknowledgement would), and the consuming JVM killed
 * with SIGKILL mid-stream and replaced by a new one.
 */
class ExactlyOnceKafkaIT {

    static KafkaCluster kafka;
    static PgDatabase database;

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

    private static Process consumerJvm(String topic, String name, String log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path output = Path.of("target", log);
        Files.createDirectories(output.getParent());
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                ConsumerMain.class.getName(), kafka.bootstrap, database.url, topic, name, "3", "1");
        builder.redirectErrorStream(true);
        builder.redirectOutput(output.toFile());
        Process process = builder.start();
        File file = output.toFile();
        KafkaCluster.await("the consumer JVM started", Duration.ofSeconds(30), () -> {
            if (!process.isAlive()) {
                throw new AssertionError("the consumer JVM exited: " + read(file));
            }
            return read(file).contains("STARTED");
        });
        return process;
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
        return database.count("SELECT COUNT(*) FROM effects");
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
}
