package io.onlyonce.spring.messaging.kafka;

import io.onlyonce.messaging.DeadLetterMarks;
import io.onlyonce.messaging.kafka.KafkaDeadLetterHeaders;
import io.onlyonce.spring.messaging.MessageLayerCounting;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;

/**
 * Publishes a record that cannot be processed to its topic's dead-letter topic,
 * {@code <topic>.DLT} (the partition chosen by its key), with Spring Kafka's
 * {@code kafka_dlt-*} headers (original topic, partition, offset, exception class, message and
 * stack trace), {@value #REASON_HEADER}, the reason in one line (the
 * {@link io.onlyonce.messaging.DeliveryPolicy DeliveryPolicy}'s, as the Kafka module's consumer writes
 * it, for the records OnlyOnce's listeners give up on), and {@value #CONSUMER_HEADER}, the
 * listener's group id, and the Kafka module's {@code x-onlyonce-original-topic}, {@code -partition}
 * and {@code -offset} as text; waits for the broker's acknowledgement, and counts
 * {@code dead_lettered} in layer {@code message}.
 *
 * <p>With {@link DeadLetterMarks} (OnlyOnce's factories have them, in the inbox table, when the
 * Kafka module {@code onlyonce-messaging-kafka} is on the class path), a record is marked under its
 * group id before it is published; a record found marked already (delivered again after the
 * application stopped or died before its offset was committed, or after a publish that failed) is
 * published only when the {@link Finder} (the module's {@code DeadLetterLookup}) does not find its
 * dead letter on the topic. So a record reaches {@code <topic>.DLT} once per group across restarts and
 * kills, with or without a message id, and none is lost for a mark: a mark or a lookup that fails
 * publishes it.
 */
public final class KafkaDeadLetters implements ConsumerAwareRecordRecoverer {

    /** The suffix of a dead-letter topic. */
    public static final String SUFFIX = ".DLT";

    /** The header with the reason a record was dead-lettered, as the Kafka module writes it. */
    public static final String REASON_HEADER = "x-onlyonce-dead-reason";

    /** The header with the group id of the listener that dead-lettered the record. */
    public static final String CONSUMER_HEADER = "x-onlyonce-consumer";

    private static final ThreadLocal<@Nullable String> CURRENT_GROUP = new ThreadLocal<>();
    private static final ThreadLocal<@Nullable String> CURRENT_REASON = new ThreadLocal<>();

    private static final Logger log = LoggerFactory.getLogger(KafkaDeadLetters.class);

    private final DeadLetterPublishingRecoverer recoverer;
    private final OutcomeRecorder recorder;
    private final @Nullable DeadLetterMarks marks;
    private final @Nullable Finder lookup;

    /**
     * Finds a dead letter on its topic: the Kafka module's
     * {@code io.onlyonce.messaging.kafka.DeadLetterLookup#contains}.
     */
    @FunctionalInterface
    public interface Finder {

        /**
         * Whether {@code deadLetterTopic} holds the dead letter {@code group} wrote of the record at
         * {@code offset} of {@code topic}'s {@code partition}, published at or after {@code sinceMillis}.
         *
         * @return true when it is there
         * @throws RuntimeException when the topic could not be read
         */
        boolean contains(String deadLetterTopic, String group, String topic, int partition, long offset,
                long sinceMillis);
    }

    /**
     * Dead letters sent through {@code template}.
     *
     * @param template the template the records are published with; its serializers must accept the
     *     keys and values the listeners receive
     * @param sendTimeout how long a publish waits for the broker's acknowledgement
     * @param recorder counts the records dead-lettered
     */
    public KafkaDeadLetters(KafkaOperations<?, ?> template, Duration sendTimeout, OutcomeRecorder recorder) {
        this(template, sendTimeout, recorder, null, null);
    }

    /**
     * Dead letters sent through {@code template}, each published once per group across restarts.
     *
     * @param template as for the other constructor
     * @param sendTimeout as for the other constructor
     * @param recorder as for the other constructor
     * @param marks where the records dead-lettered are marked, or null for none
     * @param lookup where a record found marked is looked for on its dead-letter topic; given with {@code marks}
     */
    public KafkaDeadLetters(KafkaOperations<?, ?> template, Duration sendTimeout, OutcomeRecorder recorder,
            @Nullable DeadLetterMarks marks, @Nullable Finder lookup) {
        if ((marks == null) != (lookup == null)) {
            throw new IllegalArgumentException("dead-letter marks and their lookup go together");
        }
        this.marks = marks;
        this.lookup = lookup;
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.recoverer = new DeadLetterPublishingRecoverer(template,
                (record, exception) -> new TopicPartition(record.topic() + SUFFIX, -1));
        this.recoverer.setWaitForSendResultTimeout(sendTimeout);
        this.recoverer.setFailIfSendResultIsError(true);
        this.recoverer.setHeadersFunction((record, exception) -> {
            RecordHeaders headers = new RecordHeaders();
            String reason = CURRENT_REASON.get();
            headers.add(REASON_HEADER, (reason != null ? reason : reason(exception)).getBytes(StandardCharsets.UTF_8));
            String group = CURRENT_GROUP.get();
            if (group != null) {
                headers.add(CONSUMER_HEADER, group.getBytes(StandardCharsets.UTF_8));
            }
            headers.add(KafkaDeadLetterHeaders.ORIGINAL_TOPIC, record.topic().getBytes(StandardCharsets.UTF_8));
            headers.add(KafkaDeadLetterHeaders.ORIGINAL_PARTITION,
                    Integer.toString(record.partition()).getBytes(StandardCharsets.UTF_8));
            headers.add(KafkaDeadLetterHeaders.ORIGINAL_OFFSET,
                    Long.toString(record.offset()).getBytes(StandardCharsets.UTF_8));
            return headers;
        });
    }

    /** The dead-letter topic of {@code topic}. */
    public static String topicOf(String topic) {
        return topic + SUFFIX;
    }

    @Override
    public void accept(ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer, Exception exception) {
        publish(record, consumer, exception);
    }

    /** Publishes {@code record} to its dead-letter topic, waiting for the acknowledgement. */
    void publish(ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer, Exception exception) {
        publish(record, consumer, exception, null);
    }

    /**
     * Publishes {@code record} to its dead-letter topic with {@code reason} (the
     * {@link io.onlyonce.messaging.DeliveryPolicy DeliveryPolicy}'s) in {@value #REASON_HEADER},
     * waiting for the acknowledgement.
     *
     * @param exception what Spring Kafka's {@code kafka_dlt-exception-*} headers describe
     * @param reason the reason, or null for {@code exception}'s root cause
     */
    void publish(ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer, Exception exception,
            @Nullable String reason) {
        String group = consumer == null ? null : consumer.groupMetadata().groupId();
        if (group != null && !group.isEmpty() && published(record, group, reason)) {
            return;
        }
        CURRENT_GROUP.set(group);
        CURRENT_REASON.set(reason == null ? null : oneLine(reason));
        try {
            recoverer.accept(record, consumer, exception);
        } finally {
            CURRENT_GROUP.remove();
            CURRENT_REASON.remove();
        }
        recorder.record(MessageLayerCounting.LAYER, "dead_lettered",
                group == null ? "topic " + record.topic() : "consumer " + group);
    }

    /**
     * Marks {@code record} before its dead letter is published; when it was marked before, whether
     * the dead letter is on the topic already. False (publish) without marks, and when the marks or
     * the topic cannot be read: a dead letter twice rather than none.
     */
    private boolean published(ConsumerRecord<?, ?> record, String group, @Nullable String reason) {
        DeadLetterMarks marks = this.marks;
        Finder lookup = this.lookup;
        if (marks == null || lookup == null) {
            return false;
        }
        String where = record.topic() + "-" + record.partition() + "@" + record.offset();
        try {
            if (marks.record(group, record.topic(), record.partition(), record.offset())) {
                return false;
            }
            long since = marks.markedAt(group, record.topic(), record.partition(), record.offset()).orElse(0L);
            if (lookup.contains(topicOf(record.topic()), group, record.topic(), record.partition(), record.offset(),
                    since)) {
                log.info("OnlyOnce: {} was dead-lettered to {} by group {} before ({}); not published again", where,
                        topicOf(record.topic()), group, reason == null ? "its listener failed" : oneLine(reason));
                return true;
            }
            return false;
        } catch (RuntimeException e) {
            log.warn("OnlyOnce could not tell whether {} was dead-lettered by group {} before; it is published"
                    + " (a second time if it was): {}", where, group, e.toString());
            return false;
        }
    }

    /** The innermost message of {@code exception}'s causes, with its type's simple name. */
    static String reason(@Nullable Throwable exception) {
        Throwable root = exception;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root == null) {
            return "unknown";
        }
        String message = root.getMessage();
        return oneLine(root.getClass().getSimpleName() + (message == null ? "" : ": " + message));
    }

    private static String oneLine(String reason) {
        String text = reason.replace('\r', ' ').replace('\n', ' ');
        return text.length() > 1000 ? text.substring(0, 1000) : text;
    }
}
