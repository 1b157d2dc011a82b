package io.onlyonce.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.PermanentMessageFailure;
import io.onlyonce.jdbc.sql.JdbcDialect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The consumer on the real broker with the inbox on PostgreSQL: poison messages, retries, types, a rebalance. */
class IdempotentKafkaConsumerIT {

    static KafkaCluster kafka;
    static PgDatabase database;
    static KafkaMessageTransport transport;
    final List<IdempotentKafkaConsumer> consumers = new ArrayList<>();

    @BeforeAll
    static void setUp() throws Exception {
        kafka = KafkaCluster.shared();
        database = PgDatabase.create();
        transport = KafkaMessageTransport.create(kafka.producerConfig());
    }

    @AfterAll
    static void tearDown() throws Exception {
        transport.close();
        database.close();
        kafka.close();
    }

    @AfterEach
    void stopConsumers() {
        consumers.forEach(IdempotentKafkaConsumer::close);
    }

    /** The reasons of the dead letters the consumers decided themselves ({@code onOwnDeadLetter}). */
    private final List<String> ownDeadLetters = new java.util.concurrent.CopyOnWriteArrayList<>();

    private IdempotentKafkaConsumer start(MessageConsumer consumer, String topic, int threads, String types) {
        IdempotentKafkaConsumer kafkaConsumer = IdempotentKafkaConsumer.builder(consumer, kafka.consumerConfig(),
                        kafka.producerConfig())
                .topic(topic).groupId(consumer.name()).threads(threads).messageTypes(types)
                .maxDeliveries(3).retryDelay(Duration.ofMillis(200)).onOwnDeadLetter(ownDeadLetters::add).build();
        consumers.add(kafkaConsumer);
        kafkaConsumer.start();
        return kafkaConsumer;
    }

    private static OutboxMessage message(String topic, String id, String type, String businessId) {
        return new OutboxMessage(id, topic, type, businessId, Map.of("key", "same-key", "X-Request-ID", "r-" + id));
    }

    private static void publish(OutboxMessage... messages) throws Exception {
        for (CompletableFuture<Void> future : transport.publishAll(List.of(messages))) {
            future.get(10, TimeUnit.SECONDS);
        }
    }

    private static long effect(String businessId) {
        return database.count("SELECT COALESCE(SUM(count), 0) FROM effects WHERE business_id = '" + businessId + "'");
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void poisonMessagesReachTheDeadLetterTopicAndTheRecordsAfterThemAreConsumed() throws Exception {
        String topic = kafka.newTopic("poison", 1);
        String name = KafkaCluster.unique("poison");
        IdempotentConsumer inbox = new IdempotentConsumer(name, database.pool, JdbcDialect.POSTGRESQL,
                (message, connection) -> {
                    if (message.payload().startsWith("permanent")) {
                        throw new PermanentMessageFailure("order " + message.payload() + " is cancelled");
                    }
                    PgDatabase.countEffect().handle(message, connection);
                }, PgDatabase.CONFIG);
        publish(message(topic, name + "-1", "order.paid", name + "-b1"));
        try (KafkaProducer<String, byte[]> raw = kafka.rawProducer()) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("message-type", "order.paid".getBytes(StandardCharsets.UTF_8));
            raw.send(new ProducerRecord<>(topic, null, "same-key", "no id".getBytes(StandardCharsets.UTF_8), headers))
                    .get(10, TimeUnit.SECONDS);
            RecordHeaders broken = new RecordHeaders();
            broken.add("message-id", (name + "-broken").getBytes(StandardCharsets.UTF_8));
            broken.add("message-type", "order.paid".getBytes(StandardCharsets.UTF_8));
            raw.send(new ProducerRecord<>(topic, null, "same-key", new byte[] {(byte) 0xC3, (byte) 0x28}, broken))
                    .get(10, TimeUnit.SECONDS);
        }
        publish(message(topic, name + "-2", "order.paid", "permanent-" + name),
                message(topic, name + "-3", "order.paid", name + "-b3"),
                message(topic, name + "-4", "order.other", name + "-b4")); // skipped: not order.paid

        IdempotentKafkaConsumer consumer = start(inbox, topic, 1, "order.paid");
        KafkaCluster.await("everything consumed and committed", Duration.ofSeconds(30),
                () -> kafka.fullyCommitted(name, topic));

        assertThat(effect(name + "-b1")).isEqualTo(1);
        assertThat(effect(name + "-b3")).isEqualTo(1);
        assertThat(effect(name + "-b4")).isZero();
        KafkaConsumerStats stats = consumer.stats();
        assertThat(stats.processed()).isEqualTo(2);
        assertThat(stats.deadLettered()).isEqualTo(3);
        assertThat(stats.skipped()).isEqualTo(1);
        List<ConsumerRecord<String, byte[]>> dead = kafka.readAll(topic + ".DLT", 3, Duration.ofSeconds(20));
        assertThat(dead).hasSize(3);
        assertThat(dead).extracting(r -> header(r, KafkaDeadLetterHeaders.REASON)).containsExactly(
                "missing message id", "payload is not UTF-8", "order permanent-" + name + " is cancelled");
        ConsumerRecord<String, byte[]> first = dead.get(0);
        assertThat(first.key()).isEqualTo("same-key");
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("no id");
        assertThat(header(first, KafkaDeadLetterHeaders.CONSUMER)).isEqualTo(name);
        assertThat(header(first, KafkaDeadLetterHeaders.ORIGINAL_TOPIC)).isEqualTo(topic);
        assertThat(header(first, KafkaDeadLetterHeaders.ORIGINAL_PARTITION)).isEqualTo("0");
        assertThat(header(first, KafkaDeadLetterHeaders.ORIGINAL_OFFSET)).isEqualTo("1");
        assertThat(header(first, KafkaDeadLetterHeaders.DELIVERIES)).isEqualTo("1");
        assertThat(header(first, KafkaDeadLetterHeaders.DEAD_AT)).endsWith("Z");
        assertThat(header(first, "message-type")).isEqualTo("order.paid");
        assertThat(header(dead.get(2), "X-Request-ID")).isEqualTo("r-" + name + "-2");
        assertThat(ownDeadLetters).as("the listener dead-letters what cannot be processed at all, as on RabbitMQ;"
                + " the consumer decided the permanent failure").containsExactly("missing message id", "payload is not UTF-8");
    }

    @Test
    void aRetryPausesOnlyItsPartitionAndExhaustedRetriesAreDeadLettered() throws Exception {
        String topic = kafka.newTopic("retry", 2);
        String name = KafkaCluster.unique("retry");
        IdempotentConsumer inbox = database.consumer(name);
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        MessageConsumer flaky = new MessageConsumer() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Delivery process(InboundMessage message) {
                int call = calls.computeIfAbsent(message.id(), id -> new AtomicInteger()).incrementAndGet();
                if (message.payload().startsWith("flaky") && call < 3) {
                    return Delivery.retry("database busy");
                }
                if (message.payload().startsWith("stuck")) {
                    return Delivery.retry("still busy");
                }
                return inbox.process(message);
            }

            @Override
            public ConsumerStats stats() {
                return inbox.stats();
            }
        };
        List<OutboxMessage> messages = new ArrayList<>();
        messages.add(new OutboxMessage(name + "-flaky", topic, "t", "flaky-" + name, Map.of("key", "a")));
        messages.add(new OutboxMessage(name + "-stuck", topic, "t", "stuck-" + name, Map.of("key", "a")));
        for (int i = 0; i < 20; i++) {
            messages.add(new OutboxMessage(name + "-" + i, topic, "t", name + "-b" + i, Map.of("key", i % 2 == 0 ? "a" : "b")));
        }
        publish(messages.toArray(OutboxMessage[]::new));
        IdempotentKafkaConsumer consumer = start(flaky, topic, 1, "#");
        KafkaCluster.await("everything consumed and committed", Duration.ofSeconds(30),
                () -> kafka.fullyCommitted(name, topic));

        assertThat(effect("flaky-" + name)).isEqualTo(1);
        assertThat(calls.get(name + "-flaky")).hasValue(3);
        assertThat(calls.get(name + "-stuck")).hasValue(3);
        for (int i = 0; i < 20; i++) {
            assertThat(effect(name + "-b" + i)).isEqualTo(1);
        }
        KafkaConsumerStats stats = consumer.stats();
        assertThat(stats.processed()).isEqualTo(21);
        assertThat(stats.retried()).isEqualTo(4);
        assertThat(stats.deadLettered()).isEqualTo(1);
        List<ConsumerRecord<String, byte[]>> dead = kafka.readAll(topic + ".DLT", 1, Duration.ofSeconds(20));
        assertThat(dead).singleElement().satisfies(record -> {
            assertThat(header(record, KafkaDeadLetterHeaders.REASON))
                    .isEqualTo("retries exhausted after 3 deliveries: still busy");
            assertThat(header(record, KafkaDeadLetterHeaders.DELIVERIES)).isEqualTo("3");
        });
        assertThat(ownDeadLetters).containsExactly("retries exhausted after 3 deliveries: still busy");
    }

    /** A consumer that takes at least 2 ms a message, so that a stream outlasts a rebalance. */
    private static MessageConsumer slow(MessageConsumer consumer) {
        return new MessageConsumer() {
            @Override
            public String name() {
                return consumer.name();
            }

            @Override
            public Delivery process(InboundMessage message) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return consumer.process(message);
            }

            @Override
            public ConsumerStats stats() {
                return consumer.stats();
            }
        };
    }

    @Test
    void aSecondInstanceJoiningMidStreamLosesNothingAndTakesNothingTwice() throws Exception {
        String topic = kafka.newTopic("rebalance", 6);
        String name = KafkaCluster.unique("rebalance");
        int messages = KafkaCluster.MESSAGES;
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> {
            try {
                for (int batch = 0; batch < messages / 100; batch++) {
                    OutboxMessage[] chunk = new OutboxMessage[100];
                    for (int i = 0; i < 100; i++) {
                        int n = batch * 100 + i;
                        chunk[i] = new OutboxMessage(name + "-" + n, topic, "order.paid", name + "-b" + n,
                                Map.of("key", "customer-" + (n % 50)));
                    }
                    publish(chunk);
                    Thread.sleep(20);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        IdempotentKafkaConsumer first = start(slow(database.consumer(name)), topic, 1, "#");
        KafkaCluster.await("a quarter of the effects", Duration.ofSeconds(60),
                () -> database.count("SELECT COUNT(*) FROM effects WHERE business_id LIKE '" + name + "-%'") >= messages / 4);
        IdempotentKafkaConsumer second = start(slow(database.consumer(name)), topic, 2, "#");
        publishing.get(60, TimeUnit.SECONDS);
        KafkaCluster.await("everything consumed and committed", Duration.ofSeconds(60),
                () -> kafka.fullyCommitted(name, topic));

        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE business_id LIKE '" + name + "-%'")).isEqualTo(messages);
        assertThat(database.count("SELECT MAX(count) FROM effects WHERE business_id LIKE '" + name + "-%'")).isEqualTo(1);
        assertThat(database.count("SELECT COUNT(*) FROM onlyonce_inbox WHERE consumer = '" + name + "'")).isEqualTo(messages);
        KafkaConsumerStats a = first.stats();
        KafkaConsumerStats b = second.stats();
        assertThat(a.processed()).isPositive();
        assertThat(b.processed()).isPositive();
        assertThat(a.processed() + b.processed()).isEqualTo(messages);
        assertThat(a.duplicates() + b.duplicates()).as("offsets committed when partitions were revoked").isZero();
        assertThat(a.rebalances()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void staticMembershipGivesEachThreadAnInstanceIdOfItsOwn() throws Exception {
        String topic = kafka.newTopic("static", 2);
        String name = KafkaCluster.unique("static");
        Map<String, Object> config = kafka.consumerConfig();
        config.put("group.instance.id", name + "-host-a");
        IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(database.consumer(name), config,
                kafka.producerConfig()).topic(topic).threads(2).build();
        consumers.add(consumer);
        consumer.start();
        List<OutboxMessage> messages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            messages.add(new OutboxMessage(name + "-" + i, topic, "t", name + "-b" + i, Map.of("key", "k" + i)));
        }
        publish(messages.toArray(OutboxMessage[]::new));
        KafkaCluster.await("everything consumed and committed", Duration.ofSeconds(30),
                () -> kafka.fullyCommitted(name, topic));

        assertThat(database.count("SELECT COUNT(*) FROM effects WHERE business_id LIKE '" + name + "-b%'")).isEqualTo(20);
        List<String> instances = kafka.admin.describeConsumerGroups(List.of(name)).all().get(10, TimeUnit.SECONDS)
                .get(name).members().stream().map(member -> member.groupInstanceId().orElse("none")).sorted().toList();
        assertThat(instances).as("one member per thread, none fenced").containsExactly(name + "-host-a-1",
                name + "-host-a-2");
    }
}
