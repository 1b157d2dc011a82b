package io.onlyonce.bench;

import io.onlyonce.jdbc.JdbcDialect;
import io.onlyonce.messaging.ConsumerConfig;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.IdempotentConsumer;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
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
import java.util.LinkedHashMap;
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
 * flush. The consumers are {@code consumers} threads (at most one per partition), each a
 * {@link KafkaConsumer} loop on its share of the partitions, from where the phase's stream starts,
 * that commits the offsets of each poll after handling it: the plain one
 * inserts the effect row with autocommit, the idempotent one hands each record to an
 * {@link IdempotentConsumer} (JDBC inbox) whose handler inserts the same row.
 */
final class KafkaSide implements BrokerSide {

    static final int PARTITIONS = 4;
    private static final String TYPE = "order.created";

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
    /** Where the stream of the next consumer phase starts, per partition. */
    private Map<TopicPartition, Long> preloadedFrom = Map.of();

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
        return PARTITIONS + "-partition topic, KafkaConsumer loops: autocommit insert per record, commitSync per poll";
    }

    @Override
    public String idempotentDescription() {
        return "the same loops handing each record to IdempotentConsumer (JDBC inbox), commitSync per poll";
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
        String topic = idempotent ? inboxTopic : plainTopic;
        preloadedFrom = partitionEnds(topic);
        rawPublish(stream, stream.size());
    }

    @Override
    public Drain drain(boolean idempotent, int deliveries, Settings settings) throws Exception {
        String topic = idempotent ? inboxTopic : plainTopic;
        String groupId = "bench-" + topic;
        IdempotentConsumer inbox = idempotent ? new IdempotentConsumer("bench-stock", settings.dataSource(),
                JdbcDialect.POSTGRESQL, MessagingBench.EFFECT, ConsumerConfig.ofDefaults()) : null;
        LongAdder settled = new LongAdder();
        LongAdder processed = new LongAdder();
        LongAdder duplicates = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<Throwable> crash = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        Map<TopicPartition, Long> from = preloadedFrom;
        int threadCount = Math.min(settings.consumers(), PARTITIONS);
        for (int t = 0; t < threadCount; t++) {
            List<TopicPartition> assigned = new ArrayList<>();
            for (int p = t; p < PARTITIONS; p += threadCount) {
                assigned.add(new TopicPartition(topic, p));
            }
            Thread thread = new Thread(() -> {
                try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerConfig(groupId, settings.prefetch()))) {
                    consumer.assign(assigned);
                    for (TopicPartition partition : assigned) {
                        consumer.seek(partition, from.getOrDefault(partition, 0L));
                    }
                    while (running.get()) {
                        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
                        for (ConsumerRecord<String, byte[]> record : records) {
                            if (inbox != null) {
                                Delivery delivery = inbox.process(inbound(record));
                                switch (delivery.kind()) {
                                    case PROCESSED -> processed.increment();
                                    case DUPLICATE -> duplicates.increment();
                                    default -> failed.increment();
                                }
                            } else if (!insert(settings, record)) {
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
            while (settled.sum() < deliveries) {
                if (crash.get() != null) {
                    throw new IllegalStateException("a consumer thread failed", crash.get());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kafka " + (idempotent ? "idempotent" : "plain") + " consumer: "
                            + settled.sum() + " of " + deliveries + " deliveries settled in " + MessagingBench.PHASE_TIMEOUT);
                }
                Thread.sleep(1);
            }
            seconds = (System.nanoTime() - start) / 1e9;
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
        }
        return idempotent ? new Drain(seconds, processed.sum(), duplicates.sum(), failed.sum())
                : new Drain(seconds, -1, -1, failed.sum());
    }

    private Map<String, Object> consumerConfig(String groupId, int maxPollRecords) {
        Map<String, Object> config = new HashMap<>();
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, groupId);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class.getName());
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        return config;
    }

    private static InboundMessage inbound(ConsumerRecord<String, byte[]> record) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
        }
        String id = headers.remove(KafkaMessageHeaders.MESSAGE_ID);
        String type = headers.remove(KafkaMessageHeaders.MESSAGE_TYPE);
        headers.remove(KafkaMessageHeaders.CONTENT_TYPE);
        return new InboundMessage(id, record.topic(), type == null ? "" : type,
                new String(record.value(), StandardCharsets.UTF_8), headers, false);
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
