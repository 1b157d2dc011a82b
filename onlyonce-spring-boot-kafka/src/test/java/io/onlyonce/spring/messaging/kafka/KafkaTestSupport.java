package io.onlyonce.spring.messaging.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;

/**
 * The real servers of the Kafka tests: Kafka at 127.0.0.1:9092 (topics are not created
 * automatically there: every test creates its own, with a random suffix, and deletes them) and
 * PostgreSQL at 127.0.0.1:5432 (a database per test, dropped afterwards).
 */
final class KafkaTestSupport {

    static final String BOOTSTRAP = "127.0.0.1:9092";
    static final String PG = "jdbc:postgresql://127.0.0.1:5432/";

    private KafkaTestSupport() {
    }

    static String run() {
        return UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP));
    }

    static void createTopics(int partitions, String... topics) throws Exception {
        try (Admin admin = admin()) {
            List<NewTopic> all = new ArrayList<>();
            for (String topic : topics) {
                all.add(new NewTopic(topic, partitions, (short) 1));
            }
            admin.createTopics(all).all().get(30, TimeUnit.SECONDS);
        }
    }

    static void deleteTopicsStartingWith(String prefix) {
        try (Admin admin = admin()) {
            List<String> mine = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(name -> name.startsWith(prefix)).toList();
            if (!mine.isEmpty()) {
                admin.deleteTopics(mine).all().get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // best effort: the names are unique per run
        }
    }

    static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    /** Sends {@code value} with header {@code message-id} (none when {@code id} is null), keyed {@code key}. */
    static void send(KafkaProducer<String, String> producer, String topic, @Nullable String key, @Nullable String id,
            String value) throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, value);
        if (id != null) {
            record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(record).get(30, TimeUnit.SECONDS);
    }

    /** Every record of {@code topic} from its beginning, waiting until there are at least {@code atLeast}. */
    static List<ConsumerRecord<String, String>> readAll(String topic, int atLeast, Duration timeout) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < atLeast && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            // whatever else is there already
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            return records;
        }
    }

    static @Nullable String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    static String newDatabase() throws SQLException {
        String database = "oo_kafka_boot_" + run();
        adminSql("CREATE DATABASE " + database);
        return database;
    }

    static void dropDatabase(String database) {
        try {
            adminSql("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            // best effort
        }
    }

    private static void adminSql(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(PG + "postgres", "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The common arguments of a test application on {@code database}. */
    static List<String> arguments(String database) {
        return new ArrayList<>(List.of("--spring.main.web-application-type=none",
                "--spring.datasource.url=" + PG + database, "--spring.datasource.username=postgres",
                "--spring.datasource.password=",
                "--onlyonce.messaging.initialize-schema=always",
                "--onlyonce.messaging.relay.poll-interval=200ms",
                "--spring.kafka.bootstrap-servers=" + BOOTSTRAP,
                "--spring.kafka.consumer.auto-offset-reset=earliest",
                "--spring.kafka.listener.poll-timeout=200ms",
                "--onlyonce.messaging.consumer.initial-backoff=50ms",
                "--onlyonce.messaging.consumer.max-backoff=200ms"));
    }
}
