package io.onlyonce.bench;

import io.onlyonce.jdbc.sql.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.messaging.kafka.IdempotentKafkaConsumer;
import io.onlyonce.messaging.kafka.KafkaConsumerStats;
import io.onlyonce.messaging.kafka.KafkaMessageHeaders;
import io.onlyonce.messaging.kafka.KafkaMessageTransport;
import io.onlyonce.messaging.kafka.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka for {@link MessagingBench}: the broker at {@code ONLYONCE_KAFKA_BOOTSTRAP} (127.0.0.1:9092;
 * topics are not created automatically there: the bench creates its own with the Admin client, of
 * {@value #PARTITIONS} partitions, and deletes them at the end). The relay publishes through
 * {@link KafkaMessageTransport#create}; the raw publish is a {@link KafkaProducer} with the same
 * settings ({@code acks=all}, idempotence, {@code linger.ms} 5) sending the same records, then one
 * flush. The consumers: {@link IdempotentKafkaConsumer} ({@code consumers} threads) on an
 * {@link IdempotentConsumer} (JDBC inbox) whose handler inserts the effect row, against
 * {@code consumers} plain {@link KafkaConsumer} loops that insert the same row with autocommit; both
 * subscribe in a consumer group of their own (continued from phase to phase) and commit the offsets of
 * each poll with {@code commitSync} after handling its records. A consumer phase is timed from the
 * first settled delivery to the last (joining the group, up to the first assignment, is not counted;
 * the rebalances while the other threads join are).
 */
final class KafkaSide implements BrokerSide {

    static final int PARTITIONS = 4;
    private static final String TYPE = "order.created";
    /** The consumer group protocol: {@code -Dbench.kafkaGroupProtocol}, consumer (KIP-848) unless set. */
    private static final String GROUP_PROTOCOL = System.getProperty("bench.kafkaGroupProtocol", "consumer");

    private final String bootstrap;
    private final Admin admin;
    private final KafkaTopics topics;
    private final KafkaMessageTransport transport;
    private final KafkaProducer<String, byte[]> raw;
    private final String produced;
    private final String plainTopic;
    private final String inboxTopic;
    private final List<String> created = new ArrayList<>();
    private long producedSeen;

    private KafkaSide(String bootstrap) {
        this.bootstrap = bootstrap;
        Map<String, Object> adminConfig = new HashMap<>();
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(adminConfig);
        this.topics = new KafkaTopics(admin);
        String run = UUID.randomUUID().toString().substring(0, 8);
        this.produced = topic("bench-orders-" + run);
        this.plainTopic = topic("bench-plain-" + run);
        this.inboxTopic = topic("bench-inbox-" + run);
        topic(KafkaTopics.deadLetterTopicOf(inboxTopic));
        Map<String, Object> producerConfig = new HashMap<>();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.transport = KafkaMessageTransport.create(producerConfig);
        Map<String, Object> rawConfig = new HashMap<>(producerConfig);
        rawConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        rawConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        rawConfig.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        rawConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        rawConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.raw = new KafkaProducer<>(rawConfig);
    }

    private String topic(String name) {
        topics.ensure(name, PARTITIONS, (short) 1);
        created.add(name);
        return name;
    }

    /** The side on the broker at {@code ONLYONCE_KAFKA_BOOTSTRAP}. */
    static KafkaSide start() {
        return new KafkaSide(Harness.env("ONLYONCE_KAFKA_BOOTSTRAP", "127.0.0.1:9092"));
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String rawDescription() {
        return "KafkaProducer (acks=all, idempotence, linger.ms 5): every record sent, then one flush, each callback checked";
    }

    @Override
    public String plainDescription() {
        return PARTITIONS + "-partition topic, KafkaConsumer loops in a group: autocommit insert per record, commitSync per poll";
    }

    @Override
    public String idempotentDescription() {
        return "IdempotentKafkaConsumer + IdempotentConsumer (JDBC inbox)";
    }

    @Override
    public MessageTransport transport() {
        return transport;
    }

    @Override
    public OutboxMessage message(String id) {
        return message(produced, id);
    }

    @Override
    public OutboxMessage delivery(String id, boolean idempotent) {
        return message(idempotent ? inboxTopic : plainTopic, id);
    }

    private static OutboxMessage message(String topic, String id) {
        return new OutboxMessage(id, topic, TYPE, MessagingBench.payload(id), Map.of("X-Request-ID", "req-" + id));
    }

    /** The record {@link KafkaMessageTransport} sends: key the id, the id, type and content type headers, the outbox headers. */
    private static ProducerRecord<String, byte[]> record(OutboxMessage message) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaMessageHeaders.MESSAGE_ID, utf8(message.id()));
        headers.add(KafkaMessageHeaders.MESSAGE_TYPE, utf8(message.routingKey()));
        headers.add(KafkaMessageHeaders.CONTENT_TYPE, utf8(KafkaMessageHeaders.JSON));
        message.headers().forEach((name, value) -> headers.add(name, utf8(value)));
        return new ProducerRecord<>(message.exchange(), null, message.id(), utf8(message.payload()), headers);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void rawPublish(List<OutboxMessage> messages, int batch) throws Exception {
        List<CompletableFuture<Void>> acks = new ArrayList<>(messages.size());
        for (OutboxMessage message : messages) {
            CompletableFuture<Void> ack = new CompletableFuture<>();
            raw.send(record(message), (metadata, error) -> {
                if (error == null) {
                    ack.complete(null);
                } else {
                    ack.completeExceptionally(error);
                }
            });
            acks.add(ack);
        }
        raw.flush();
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(MessagingBench.PHASE_TIMEOUT.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void expectPublished(long count) throws Exception {
        long total = endOffsets(produced);
        if (total - producedSeen != count) {
            throw new IllegalStateException("topic " + produced + " received " + (total - producedSeen) + " records, expected "
                    + count);
        }
        producedSeen = total;
    }

    private long endOffsets(String topic) throws Exception {
        long total = 0;
        for (long offset : partitionEnds(topic).values()) {
            total += offset;
        }
        return total;
    }

    private Map<TopicPartition, Long> partitionEnds(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((partition, info) -> ends.put(partition, info.offset()));
        return ends;
    }

    @Override
    public long counter() {
        return 0;
    }

    @Override
    public String counterName() {
        return null;
    }

    @Override
    public void preload(List<OutboxMessage> stream, boolean idempotent) throws Exception {
        rawPublish(stream, stream.size());
    }

    @Override
    public Drain drain(boolean idempotent, int deliveries, Settings settings) throws Exception {
        return idempotent ? drainIdempotent(deliveries, settings) : drainPlain(deliveries, settings);
    }

    /** {@link IdempotentKafkaConsumer} on the inbox topic, in a group of its own that each phase continues. */
    private Drain drainIdempotent(int deliveries, Settings settings) throws Exception {
        IdempotentConsumer inbox = new IdempotentConsumer("bench-stock", settings.dataSource(), JdbcDialect.POSTGRESQL,
                MessagingBench.EFFECT, ConsumerConfig.ofDefaults());
        Map<String, Object> producerConfig = new HashMap<>();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        IdempotentKafkaConsumer consumer = IdempotentKafkaConsumer.builder(inbox, consumerConfig(settings.prefetch()),
                producerConfig).topic(inboxTopic).groupId("bench-" + inboxTopic).threads(settings.consumers()).build();
        double seconds;
        try {
            long start = System.nanoTime();
            long deadline = start + MessagingBench.PHASE_TIMEOUT.toNanos();
            consumer.start();
            long first = 0;
            KafkaConsumerStats stats;
            long done;
            while ((done = settled(stats = consumer.stats())) < deliveries) {
                if (first == 0 && done > 0) {
                    first = System.nanoTime();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kafka idempotent consumer: " + stats + " of " + deliveries
                            + " deliveries in " + MessagingBench.PHASE_TIMEOUT);
                }
                Thread.sleep(1);
            }
            seconds = (System.nanoTime() - (first == 0 ? start : first)) / 1e9;
        } finally {
            consumer.close();
        }
        KafkaConsumerStats stats = consumer.stats();
        return new Drain(seconds, stats.processed(), stats.duplicates(), stats.deadLettered() + stats.retried());
    }

    private static long settled(KafkaConsumerStats stats) {
        return stats.processed() + stats.duplicates() + stats.deadLettered();
    }

    /**
     * {@code consumers} plain {@link KafkaConsumer} loops in a group of their own that each phase
     * continues: per record one autocommit insert, then {@code commitSync} after each poll.
     */
    private Drain drainPlain(int deliveries, Settings settings) throws Exception {
        LongAdder settled = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> crash = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        Map<String, Object> config = consumerConfig(settings.prefetch());
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, "bench-" + plainTopic);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class.getName());
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        long start = System.nanoTime();
        for (int t = 0; t < settings.consumers(); t++) {
            Thread thread = new Thread(() -> {
                try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
                    consumer.subscribe(List.of(plainTopic));
                    while (running.get()) {
                        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
                        for (ConsumerRecord<String, byte[]> record : records) {
                            if (!insert(settings, record)) {
                                failed.increment();
                            }
                            settled.increment();
                        }
                        if (!records.isEmpty()) {
                            consumer.commitSync();
                        }
                    }
                } catch (Throwable e) {
                    crash.compareAndSet(null, e);
                }
            }, "bench-kafka-consumer-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        double seconds;
        try {
            long deadline = start + MessagingBench.PHASE_TIMEOUT.toNanos();
            long first = 0;
            long done;
            while ((done = settled.sum()) < deliveries) {
                if (first == 0 && done > 0) {
                    first = System.nanoTime();
                }
                if (crash.get() != null) {
                    throw new IllegalStateException("a consumer thread failed", crash.get());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kafka plain consumer: " + settled.sum() + " of " + deliveries
                            + " deliveries settled in " + MessagingBench.PHASE_TIMEOUT);
                }
                Thread.sleep(1);
            }
            seconds = (System.nanoTime() - (first == 0 ? start : first)) / 1e9;
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
        }
        return new Drain(seconds, -1, -1, failed.sum());
    }

    private Map<String, Object> consumerConfig(int maxPollRecords) {
        Map<String, Object> config = new HashMap<>();
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_PROTOCOL_CONFIG, GROUP_PROTOCOL);
        return config;
    }

    private static boolean insert(Settings settings, ConsumerRecord<String, byte[]> record) {
        Header id = record.headers().lastHeader(KafkaMessageHeaders.MESSAGE_ID);
        try (Connection connection = settings.dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement(MessagingBench.INSERT_EFFECT)) {
            insert.setString(1, new String(id.value(), StandardCharsets.UTF_8));
            insert.setString(2, new String(record.value(), StandardCharsets.UTF_8));
            insert.executeUpdate();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() throws Exception {
        transport.close();
        raw.close();
        try {
            admin.deleteTopics(created).all().get(30, TimeUnit.SECONDS);
        } finally {
            admin.close();
        }
    }
}
