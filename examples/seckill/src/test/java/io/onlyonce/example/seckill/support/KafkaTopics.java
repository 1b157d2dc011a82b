package io.onlyonce.example.seckill.support;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Kafka topics of the tests' own on the shared broker ({@code ONLYONCE_KAFKA_BOOTSTRAP}, default
 * 127.0.0.1:9092, which {@code scripts/services.sh} starts): each test class publishes to a topic
 * named for it alone, which the service creates with its dead-letter topic at start-up, and deletes
 * both when it is done, so no two runs share a partition.
 */
public final class KafkaTopics {

    private KafkaTopics() {
    }

    public static String bootstrap() {
        String value = System.getenv("ONLYONCE_KAFKA_BOOTSTRAP");
        return value == null || value.isBlank() ? "127.0.0.1:9092" : value;
    }

    /** A topic name no other run uses (the service creates it). */
    public static String newName() {
        return "oo-seckill-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** How many records {@code topic} holds: the sum of its partitions' end offsets. */
    public static long records(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
            var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                    .partitions().stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition()))
                    .collect(java.util.stream.Collectors.toMap(p -> p,
                            p -> org.apache.kafka.clients.admin.OffsetSpec.latest()));
            return admin.listOffsets(partitions).all().get(10, TimeUnit.SECONDS).values().stream()
                    .mapToLong(org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
        }
    }

    /** Deletes {@code topic} and its dead-letter topic, if they exist. */
    public static void delete(String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000))) {
            List<String> existing = admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
                    .filter(name -> name.equals(topic) || name.equals(topic + ".DLT")).toList();
            if (!existing.isEmpty()) {
                admin.deleteTopics(existing).all().get(10, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            // left for the broker's retention: a later run never reuses the name
        }
    }
}
