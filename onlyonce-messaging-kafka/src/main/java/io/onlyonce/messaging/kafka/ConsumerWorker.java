package io.onlyonce.messaging.kafka;

import io.onlyonce.messaging.DeadLetterMarks;
import io.onlyonce.messaging.DeliveryPolicy;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/**
 * One thread of an idempotent Kafka consumer: its own {@link Consumer} in the group, records
 * handled in partition order, offsets committed only for records whose outcome is final.
 *
 * <p>Per poll: each partition's records in order; a final outcome (processed, duplicate, skipped,
 * dead-lettered and acknowledged) moves the partition's offset to commit past the record; a retry
 * seeks the partition back to the record and pauses it for the retry delay, and the partition's
 * later records of the poll wait. After the poll's records, and when partitions are revoked, the
 * offsets are committed ({@code commitSync}); a dead letter's offset is committed as soon as the
 * broker acknowledged it. With {@link DeadLetterMarks}, a record is marked before its dead letter is
 * published; a record found marked already is published only when the {@link DeadLetterLookup} does
 * not find its dead letter on the topic: a record delivered again after a crash between the publish
 * and the commit is not published twice, and one whose publish never reached the broker is not lost.
 */
final class ConsumerWorker implements Runnable {

    private static final System.Logger LOG = System.getLogger(ConsumerWorker.class.getName());
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_TRACKED = 100_000;

    /**
     * The settings every thread of a consumer shares.
     *
     * @param onOwnDeadLetter told, with the reason, of each record dead-lettered without the consumer
     *     having answered DEAD_LETTER
     * @param marks the records the consumer dead-lettered, under its name, or null to keep none
     * @param lookup where a marked record's dead letter is looked for; given with {@code marks}
     */
    public record Settings(String topic, TopicPattern messageTypes, MessageConsumer consumer,
            int maxDeliveries, Duration retryDelay, java.util.function.Consumer<String> onOwnDeadLetter,
            @Nullable DeadLetterMarks marks, @Nullable DeadLetterLookup lookup) {
        /** Checks the settings. */
        public Settings {
            Objects.requireNonNull(topic, "topic");
            if ((marks == null) != (lookup == null)) {
                throw new IllegalArgumentException("dead-letter marks and their lookup go together");
            }
            Objects.requireNonNull(messageTypes, "messageTypes");
            Objects.requireNonNull(consumer, "consumer");
            Objects.requireNonNull(retryDelay, "retryDelay");
            Objects.requireNonNull(onOwnDeadLetter, "onOwnDeadLetter");
        }
    }

    private enum Outcome { FINAL, RETRY }

    private record Position(TopicPartition partition, long offset) {
    }

    private final Consumer<String, byte[]> kafka;
    private final Settings settings;
    private final DeliveryPolicy policy;
    private final Counters counters;
    private final DeadLetterPublisher deadLetters;
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final Map<TopicPartition, Long> resumeAt = new HashMap<>();
    private final Map<Position, Integer> deliveries = new HashMap<>();
    private volatile boolean running = true;
    private boolean commitNow;

    /**
     * A worker; nothing runs until {@link #run()}.
     *
     * @param kafka its consumer (auto-commit off), used on the worker's thread only
     * @param settings what to consume and how
     * @param counters the counts to add to
     * @param deadLetters where dead letters go
     */
    public ConsumerWorker(Consumer<String, byte[]> kafka, Settings settings, Counters counters,
            DeadLetterPublisher deadLetters) {
        this.kafka = kafka;
        this.settings = settings;
        this.policy = new DeliveryPolicy(settings.maxDeliveries());
        this.counters = counters;
        this.deadLetters = deadLetters;
    }

    /** Asks the worker to stop after the record in hand; {@link #run()} then commits and closes its consumer. */
    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        try {
            kafka.subscribe(List.of(settings.topic()), new Rebalances());
            while (running) {
                resumeDue();
                ConsumerRecords<String, byte[]> records;
                try {
                    records = kafka.poll(POLL);
                } catch (WakeupException | InterruptException e) {
                    break;
                } catch (KafkaException e) {
                    LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name() + ": poll failed: " + e);
                    pause(Duration.ofSeconds(1));
                    continue;
                }
                handle(records);
                commit();
            }
        } finally {
            try {
                commit();
            } finally {
                try {
                    kafka.close(CLOSE_TIMEOUT);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name() + ": close failed: " + e);
                }
            }
        }
    }

    private void handle(ConsumerRecords<String, byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
                if (!running) {
                    return; // not committed past here: the records are delivered again
                }
                Outcome outcome;
                try {
                    outcome = handle(record);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name() + ": record " + partition
                            + "@" + record.offset() + " failed; delivered again", e);
                    outcome = Outcome.RETRY;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    running = false;
                    outcome = Outcome.RETRY;
                }
                if (outcome == Outcome.FINAL) {
                    deliveries.remove(new Position(partition, record.offset()));
                    pending.put(partition, new OffsetAndMetadata(record.offset() + 1));
                    if (commitNow) {
                        // a dead letter: its offset before anything else, so that a crash does not deliver
                        // the record again (and publish it again where no mark says it went)
                        commitNow = false;
                        commit();
                    }
                } else {
                    kafka.seek(partition, record.offset());
                    kafka.pause(List.of(partition));
                    resumeAt.put(partition, System.nanoTime() + settings.retryDelay().toNanos());
                    counters.retried.increment();
                    break; // the partition's later records wait: order per partition
                }
            }
        }
    }

    private Outcome handle(ConsumerRecord<String, byte[]> record) throws InterruptedException {
        String type = header(record, KafkaMessageHeaders.MESSAGE_TYPE);
        if (!settings.messageTypes().matches(type == null ? "" : type)) {
            counters.skipped.increment();
            return Outcome.FINAL;
        }
        if (deliveries.size() >= MAX_TRACKED) {
            deliveries.clear();
        }
        int delivery = deliveries.merge(new Position(new TopicPartition(record.topic(), record.partition()),
                record.offset()), 1, Integer::sum);
        String id = header(record, KafkaMessageHeaders.MESSAGE_ID);
        String payload = record.value() == null ? "" : DeliveryPolicy.utf8(record.value());
        String unusable = DeliveryPolicy.unusable(id, payload);
        if (unusable != null) {
            return deadLetter(record, unusable, delivery, true);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8));
        }
        InboundMessage message = new InboundMessage(id, record.topic(), type == null ? "" : type,
                Objects.requireNonNull(payload), headers, delivery > 1);
        DeliveryPolicy.Decision decision = policy.decide(settings.consumer(), message, delivery);
        if (decision instanceof DeliveryPolicy.Decision.Acknowledge acknowledge) {
            (acknowledge.duplicate() ? counters.duplicates : counters.processed).increment();
            return Outcome.FINAL;
        }
        if (decision instanceof DeliveryPolicy.Decision.Redeliver) {
            return Outcome.RETRY;
        }
        DeliveryPolicy.Decision.DeadLetter dead = (DeliveryPolicy.Decision.DeadLetter) decision;
        return deadLetter(record, dead.reason(), delivery, dead.own());
    }

    /** Dead-letters the record; {@code own}: the consumer did not answer DEAD_LETTER. */
    private Outcome deadLetter(ConsumerRecord<String, byte[]> record, String reason, int delivery, boolean own)
            throws InterruptedException {
        String where = record.topic() + "-" + record.partition() + "@" + record.offset();
        if (published(record, where)) {
            LOG.log(System.Logger.Level.INFO, "consumer " + settings.consumer().name() + ": " + where
                    + " was dead-lettered to " + deadLetters.topic() + " before (" + reason + "); not published again");
            commitNow = true;
            return Outcome.FINAL;
        }
        try {
            deadLetters.publish(record, reason, delivery);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "consumer " + settings.consumer().name() + ": could not dead-letter "
                    + record.topic() + "-" + record.partition() + "@" + record.offset() + " (" + reason + ") to "
                    + deadLetters.topic() + "; delivered again: " + e.getMessage());
            return Outcome.RETRY;
        }
        commitNow = true;
        counters.deadLettered.increment();
        if (own) {
            try {
                settings.onOwnDeadLetter().accept(reason);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name()
                        + ": a dead-letter listener failed: " + e);
            }
        }
        LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name() + ": dead-lettered "
                + record.topic() + "-" + record.partition() + "@" + record.offset() + " to " + deadLetters.topic() + ": "
                + reason);
        return Outcome.FINAL;
    }

    /**
     * Marks the record before its dead letter is published; when it was marked before, whether its
     * dead letter is on the topic already. False (publish) when the marks or the topic cannot be read:
     * a dead letter twice rather than none.
     */
    private boolean published(ConsumerRecord<String, byte[]> record, String where) {
        DeadLetterMarks marks = settings.marks();
        DeadLetterLookup lookup = settings.lookup();
        if (marks == null || lookup == null) {
            return false;
        }
        String name = settings.consumer().name();
        try {
            if (marks.record(name, record.topic(), record.partition(), record.offset())) {
                return false;
            }
            long since = marks.markedAt(name, record.topic(), record.partition(), record.offset()).orElse(0L);
            return lookup.contains(deadLetters.topic(), name, record.topic(), record.partition(), record.offset(), since);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + name + ": could not tell whether " + where
                    + " was dead-lettered before; it is published (a second time if it was): " + e);
            return false;
        }
    }

    private void resumeDue() {
        if (resumeAt.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        Iterator<Map.Entry<TopicPartition, Long>> due = resumeAt.entrySet().iterator();
        while (due.hasNext()) {
            Map.Entry<TopicPartition, Long> entry = due.next();
            if (now - entry.getValue() >= 0) {
                if (kafka.assignment().contains(entry.getKey())) {
                    kafka.resume(List.of(entry.getKey()));
                }
                due.remove();
            }
        }
    }

    private void commit() {
        if (pending.isEmpty()) {
            return;
        }
        try {
            kafka.commitSync(new HashMap<>(pending));
            pending.clear();
        } catch (CommitFailedException e) {
            // the group moved the partitions elsewhere: their new owner starts at the last committed
            // offset, and the inbox drops what this thread had processed
            LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name() + ": commit failed: " + e.getMessage());
            pending.clear();
        } catch (WakeupException | InterruptException e) {
            running = false;
        } catch (KafkaException e) {
            LOG.log(System.Logger.Level.WARNING, "consumer " + settings.consumer().name() + ": commit failed, "
                    + "tried again after the next poll: " + e);
        }
    }

    private static @Nullable String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        if (header == null || header.value() == null) {
            return null;
        }
        String text = DeliveryPolicy.utf8(header.value());
        return text == null ? "\uFFFD" : text;
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Commits before partitions go, forgets what it kept for them, counts assignments. */
    private final class Rebalances implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commit();
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            counters.rebalances.increment();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            forget(partitions);
        }

        private void forget(Collection<TopicPartition> partitions) {
            for (TopicPartition partition : partitions) {
                pending.remove(partition);
                resumeAt.remove(partition);
            }
            deliveries.keySet().removeIf(position -> partitions.contains(position.partition()));
        }
    }
}
