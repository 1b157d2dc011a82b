package io.onlyonce.spring.messaging.kafka;

import static io.onlyonce.spring.messaging.kafka.KafkaTestSupport.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.json.Json;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.kafka.KafkaMessageTransport;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code onlyonce.messaging.transport=kafka} on the real Kafka and PostgreSQL: the relay publishes
 * a message recorded in a business transaction to its topic with OnlyOnce's headers and marks it
 * SUCCESS, {@code /actuator/onlyonce} reports the transport, and a {@link ConsumerDefinition} runs
 * on Kafka: 300 records with 30 % duplicates take effect once each, the duplicates are counted, and
 * a poison record (no message id) lands on {@code <topic>.DLT} while the records after it are
 * consumed.
 */
class KafkaTransportIT {

    /** Spring Security's auto-configurations by their Boot 4 and Boot 3.5 names (a name not on the class path is ignored). */
    private static final String EXCLUDE_SECURITY = "--spring.autoconfigure.exclude="
            + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
            + "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration,"
            + "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration";

    private @Nullable ConfigurableApplicationContext running;
    private @Nullable String database;
    private final String run = KafkaTestSupport.run();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Shop {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Points {
        @Bean
        ConsumerDefinition pointsConsumer(org.springframework.core.env.Environment environment) {
            return ConsumerDefinition.of(environment.getRequiredProperty("test.consumer"),
                    environment.getRequiredProperty("test.topic"), "order.*", (message, connection) -> {
                        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO effects (message_id, count)"
                                + " VALUES (?, 1) ON CONFLICT (message_id) DO UPDATE SET count = effects.count + 1")) {
                            upsert.setString(1, message.id());
                            upsert.executeUpdate();
                        }
                    });
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
    }

    @Test
    void theRelayPublishesToKafkaWithHeadersAndTheEndpointSaysKafka() throws Exception {
        String topic = "oo-it-" + run + "-orders";
        KafkaTestSupport.createTopics(3, topic);
        database = KafkaTestSupport.newDatabase();
        List<String> arguments = KafkaTestSupport.arguments(database);
        arguments.remove("--spring.main.web-application-type=none");
        arguments.addAll(List.of("--server.port=0", "--onlyonce.messaging.transport=kafka", EXCLUDE_SECURITY));
        running = new SpringApplicationBuilder(Shop.class).run(arguments.toArray(String[]::new));
        assertThat(running.getBean(MessageTransport.class)).isInstanceOf(KafkaMessageTransport.class);

        OutboxMessage paid = new OutboxMessage(OutboxMessage.id("O" + run, "paid"), topic, "order.paid",
                "{\"orderNo\":\"O" + run + "\"}", Map.of("key", "O" + run, "X-Request-ID", "req-" + run));
        JdbcTemplate jdbc = running.getBean(JdbcTemplate.class);
        new TransactionTemplate(running.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
            jdbc.execute("CREATE TABLE IF NOT EXISTS shop_orders (order_no VARCHAR(64))");
            jdbc.update("INSERT INTO shop_orders (order_no) VALUES (?)", "O" + run);
            running.getBean(TransactionalOutbox.class).record(paid);
        });

        List<ConsumerRecord<String, String>> records = KafkaTestSupport.readAll(topic, 1, Duration.ofSeconds(30));
        assertThat(records).hasSize(1);
        ConsumerRecord<String, String> record = records.get(0);
        assertThat(record.key()).isEqualTo("O" + run);
        assertThat(record.value()).isEqualTo("{\"orderNo\":\"O" + run + "\"}");
        assertThat(header(record, "message-id")).isEqualTo(paid.id());
        assertThat(header(record, "message-type")).isEqualTo("order.paid");
        assertThat(header(record, "content-type")).isEqualTo("application/json");
        assertThat(header(record, "X-Request-ID")).isEqualTo("req-" + run);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(jdbc.queryForObject(
                "SELECT status FROM onlyonce_message_log WHERE id = ?", String.class, paid.id()))
                .isEqualTo("SUCCESS"));
        assertThat(running.getBean(OnlyOnceStatistics.class).count("message", "sent")).isEqualTo(1);

        String port = running.getEnvironment().getRequiredProperty("local.server.port");
        HttpResponse<String> report = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/onlyonce")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(report.statusCode()).isEqualTo(200);
        assertThat(Json.member(Json.onClassPath().read(report.body().getBytes(StandardCharsets.UTF_8)),
                "configuration.messaging.transport")).isEqualTo("kafka");
    }

    @Test
    void aConsumerDefinitionOnKafkaTakesEachOf300MessagesOnceAndDeadLettersThePoison() throws Exception {
        String topic = "oo-it-" + run + "-payments";
        String consumer = "points-" + run;
        database = KafkaTestSupport.newDatabase();
        new JdbcTemplate(new DriverManagerDataSource(KafkaTestSupport.PG + database, "postgres", ""))
                .execute("CREATE TABLE effects (message_id VARCHAR(255) PRIMARY KEY, count INTEGER NOT NULL)");
        List<String> arguments = KafkaTestSupport.arguments(database);
        arguments.addAll(List.of("--onlyonce.messaging.transport=kafka", "--onlyonce.messaging.kafka.partitions=3",
                "--onlyonce.messaging.consumer.workers=2", "--test.topic=" + topic, "--test.consumer=" + consumer));
        running = new SpringApplicationBuilder(Points.class).run(arguments.toArray(String[]::new));
        try (var admin = KafkaTestSupport.admin()) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("created at start-up")
                    .contains(topic, topic + ".DLT");
        }

        // 210 distinct ids and 90 duplicates of them, shuffled; the poison in the middle
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 210; i++) {
            ids.add("pay-" + i);
        }
        List<String> sent = new ArrayList<>(ids);
        Random random = new Random(42);
        for (int i = 0; i < 90; i++) {
            sent.add(ids.get(random.nextInt(ids.size())));
        }
        Collections.shuffle(sent, random);
        try (KafkaProducer<String, String> producer = KafkaTestSupport.producer()) {
            for (int i = 0; i < sent.size(); i++) {
                if (i == 150) {
                    producer.send(typed(new ProducerRecord<>(topic, "poison", "{}"))).get(30, TimeUnit.SECONDS);
                }
                ProducerRecord<String, String> record = typed(new ProducerRecord<>(topic, sent.get(i), "{}"));
                record.headers().add("message-id", sent.get(i).getBytes(StandardCharsets.UTF_8));
                producer.send(record);
            }
            producer.flush();
        }

        JdbcTemplate jdbc = running.getBean(JdbcTemplate.class);
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(jdbc.queryForObject(
                "SELECT COUNT(*) FROM effects", Long.class)).isEqualTo(210));
        assertThat(jdbc.queryForObject("SELECT MAX(count) FROM effects", Integer.class)).as("each effect once").isEqualTo(1);
        OnlyOnceStatistics statistics = running.getBean(OnlyOnceStatistics.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(statistics.count("message", "processed")).isEqualTo(210);
            assertThat(statistics.count("message", "duplicate_dropped")).isEqualTo(90);
        });
        List<ConsumerRecord<String, String>> dead = KafkaTestSupport.readAll(topic + ".DLT", 1, Duration.ofSeconds(30));
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).key()).isEqualTo("poison");
        assertThat(header(dead.get(0), "x-onlyonce-dead-reason")).isNotBlank();
        assertThat(header(dead.get(0), "x-onlyonce-consumer")).isEqualTo(consumer);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM onlyonce_inbox WHERE consumer = ?", Long.class, consumer))
                .isEqualTo(210);
    }

    private static ProducerRecord<String, String> typed(ProducerRecord<String, String> record) {
        record.headers().add("message-type", "order.paid".getBytes(StandardCharsets.UTF_8));
        record.headers().add("content-type", "application/json".getBytes(StandardCharsets.UTF_8));
        return record;
    }
}
