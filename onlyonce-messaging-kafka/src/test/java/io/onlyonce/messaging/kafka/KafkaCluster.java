package io.onlyonce.messaging.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The Kafka broker of the tests: {@code 127.0.0.1:9092} unless {@code -Dkafka.bootstrap} says
 * otherwise, or a private one ({@link #at}). Topics are never created automatically there: each test
 * creates its own, with unique names.
 */
final class KafkaCluster implements AutoCloseable {

    static final String DEFAULT_BOOTSTRAP = System.getProperty("kafka.bootstrap", "127.0.0.1:9092");

    /** The scale of the long tests: {@code -Dkafka.it.messages=10000} for the full run. */
    static final int MESSAGES = Integer.getInteger("kafka.it.messages", 2_000);

    final String bootstrap;
    final Admin admin;
    final KafkaTopics topics;

    private KafkaCluster(String bootstrap) {
        this.bootstrap = bootstrap;
        Map<String, Object> config = new HashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        this.admin = Admin.create(config);
        this.topics = new KafkaTopics(admin);
    }

    static KafkaCluster shared() {
        return new KafkaCluster(DEFAULT_BOOTSTRAP);
    }

    static KafkaCluster at(String bootstrap) {
        return new KafkaCluster(bootstrap);
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A new topic of {@code partitions} partitions and its dead-letter topic. */
    String newTopic(String prefix, int partitions) {
        String topic = unique(prefix);
        topics.ensureWithDeadLetter(topic, partitions, (short) 1);
        return topic;
    }

    Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return config;
    }

    Map<String, Object> consumerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        return config;
    }

    /** A plain producer, for records the transport would never send (no message id, broken UTF-8). */
    org.apache.kafka.clients.producer.KafkaProducer<String, byte[]> rawProducer() {
        Map<String, Object> config = producerConfig();
        return new org.apache.kafka.clients.producer.KafkaProducer<>(config,
                new org.apache.kafka.common.serialization.StringSerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
    }

    /** Whether the group's committed offsets on {@code topic} are its end offsets: nothing left unconsumed. */
    boolean fullyCommitted(String group, String topic) {
        try {
            Map<TopicPartition, Long> end = endOffsets(topic);
            Map<TopicPartition, Long> committed = committed(group);
            for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
                if (partition.getValue() > 0 && !partition.getValue().equals(committed.get(partition.getKey()))) {
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** Reads {@code topic} from the beginning until {@code expected} records came, or {@code timeout} passed. */
    List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected, Duration timeout) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, unique("reader"));
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            // a little longer: more than expected would show here
            long extra = System.nanoTime() + Duration.ofMillis(500).toNanos();
            while (System.nanoTime() < extra) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    /** The sum of the end offsets of {@code topic}'s partitions. */
    long endOffsetSum(String topic) throws Exception {
        return endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
    }

    Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        description.partitions().forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result = admin.listOffsets(request).all().get();
        Map<TopicPartition, Long> offsets = new HashMap<>();
        result.forEach((partition, info) -> offsets.put(partition, info.offset()));
        return offsets;
    }

    /** The committed offsets of {@code group}, per partition (a partition with none is absent). */
    Map<TopicPartition, Long> committed(String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, Long> result = new HashMap<>();
        offsets.forEach((partition, offset) -> {
            if (offset != null) {
                result.put(partition, offset.offset());
            }
        });
        return result;
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
