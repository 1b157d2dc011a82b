package io.onlyonce.messaging.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a dead-letter topic to find out whether the dead letter of one record is on it: what a
 * consumer asks when it finds a {@link io.onlyonce.messaging.DeadLetterMarks mark} it wrote before
 * publishing, so that it cannot tell from the mark alone whether the publish reached the broker
 * (the consumer died in between). A dead letter is recognised by the
 * {@link KafkaDeadLetterHeaders} that both OnlyOnce consumers write: the consumer's name (the
 * {@code @KafkaListener}'s group id), the original topic, partition and offset.
 *
 * <p>The topic is read from the first record at or after the mark's time less
 * {@link #CLOCK_MARGIN} (the mark is on the database's clock, a record's timestamp on its
 * producer's) to its end at the time of the call, on a consumer of its own without a group, which
 * commits nothing. Asked only for records delivered again after a mark, which is rare: a
 * crash, or a dead letter whose publish failed.
 */
public final class DeadLetterLookup {

    /** How far before the mark the topic is read from: 15 minutes, for clocks that disagree. */
    public static final Duration CLOCK_MARGIN = Duration.ofMinutes(15);

    private static final Duration POLL = Duration.ofMillis(100);

    private final Map<String, Object> config;
    private final Duration timeout;

    /**
     * A lookup with the connection settings of {@code consumerConfig} ({@code bootstrap.servers},
     * security); its group, deserializers and commit settings are replaced.
     *
     * @param consumerConfig the consumer's settings
     * @param timeout how long one lookup may take
     */
    public DeadLetterLookup(Map<String, Object> consumerConfig, Duration timeout) {
        Map<String, Object> settings = new HashMap<>(Objects.requireNonNull(consumerConfig, "consumerConfig"));
        settings.remove(ConsumerConfig.GROUP_ID_CONFIG);
        settings.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        settings.remove(ConsumerConfig.CLIENT_ID_CONFIG);
        settings.remove(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG);
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.config = Map.copyOf(settings);
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Whether {@code deadLetterTopic} holds the dead letter that {@code consumer} wrote of the
     * record at {@code offset} of {@code topic}'s {@code partition}, published at or after
     * {@code sinceMillis} (less {@link #CLOCK_MARGIN}).
     *
     * @param consumer the name in the dead letter's {@value KafkaDeadLetterHeaders#CONSUMER} header
     * @param sinceMillis the epoch milliseconds of the mark
     * @return true when it is there
     * @throws org.apache.kafka.common.KafkaException when the topic could not be read to its end in time
     */
    public boolean contains(String deadLetterTopic, String consumer, String topic, int partition, long offset,
            long sinceMillis) {
        long from = Math.max(0, sinceMillis - CLOCK_MARGIN.toMillis());
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : reader.partitionsFor(deadLetterTopic, timeout)) {
                partitions.add(new TopicPartition(deadLetterTopic, info.partition()));
            }
            if (partitions.isEmpty()) {
                throw new TimeoutException("no partitions of " + deadLetterTopic + " known");
            }
            reader.assign(partitions);
            Map<TopicPartition, Long> times = new HashMap<>();
            partitions.forEach(p -> times.put(p, from));
            Map<TopicPartition, OffsetAndTimestamp> starts = reader.offsetsForTimes(times, timeout);
            Map<TopicPartition, Long> ends = reader.endOffsets(partitions, timeout);
            Set<TopicPartition> open = new HashSet<>();
            for (TopicPartition p : partitions) {
                OffsetAndTimestamp start = starts.get(p);
                if (start != null && start.offset() < ends.getOrDefault(p, 0L)) {
                    reader.seek(p, start.offset());
                    open.add(p);
                }
            }
            reader.pause(partitions.stream().filter(p -> !open.contains(p)).toList());
            while (!open.isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new TimeoutException(deadLetterTopic + " was not read to its end within " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> letter : reader.poll(POLL)) {
                    if (letter.offset() < ends.get(new TopicPartition(letter.topic(), letter.partition()))
                            && isLetterOf(letter.headers(), consumer, topic, partition, offset)) {
                        return true;
                    }
                }
                open.removeIf(p -> reader.position(p, timeout) >= ends.get(p));
            }
            return false;
        }
    }

    /**
     * Whether {@code headers} are those of the dead letter that {@code consumer} wrote of the record
     * at {@code offset} of {@code topic}'s {@code partition}.
     *
     * @return true when the last of each {@link KafkaDeadLetterHeaders} header matches
     */
    public static boolean isLetterOf(Headers headers, String consumer, String topic, int partition, long offset) {
        return consumer.equals(text(headers, KafkaDeadLetterHeaders.CONSUMER))
                && topic.equals(text(headers, KafkaDeadLetterHeaders.ORIGINAL_TOPIC))
                && Integer.toString(partition).equals(text(headers, KafkaDeadLetterHeaders.ORIGINAL_PARTITION))
                && Long.toString(offset).equals(text(headers, KafkaDeadLetterHeaders.ORIGINAL_OFFSET));
    }

    private static String text(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "DeadLetterLookup[" + config.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) + "]";
    }
}
