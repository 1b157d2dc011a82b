package io.onlyonce.spring.messaging.kafka;

import io.onlyonce.messaging.DeliveryPolicy;
import io.onlyonce.spring.messaging.MessageLayerCounting;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.ListenerUtils;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * What OnlyOnce's Kafka listener containers do after the transaction of a failed delivery rolled
 * back (the inbox row and the listener's writes with it): the {@link DeliveryPolicy} decides
 * ({@link DeliveryPolicy#failed}), Spring Kafka executes. While the policy answers
 * {@link DeliveryPolicy.Decision.Redeliver redeliver}, the records are sought back and delivered
 * again after a back-off; when it answers {@link DeliveryPolicy.Decision.DeadLetter dead-letter}
 * (a {@link io.onlyonce.messaging.PermanentMessageFailure} at once, any other failure on its
 * {@code maxAttempts}-th attempt, as {@code failed n attempts: <error>}) the record is published to
 * {@code <topic>.DLT} with the policy's reason, and the partition goes on with the records after it:
 * the fate and the reason an {@link io.onlyonce.messaging.IdempotentConsumer} on the Kafka module's
 * consumer gives the same failure. The error is the listener's own, not Spring Kafka's
 * {@link ListenerExecutionFailedException} around it, nor a {@link BatchListenerFailedException}
 * that only names the record of its cause.
 *
 * <p>For a record listener the records handed in are the failed one and the rest of its poll. For a
 * batch listener ({@link InboxBatchErrorHandler}) the batch is delivered again whole (its transaction
 * rolled back whole); the record that failed is the one a {@link BatchListenerFailedException}
 * names, and when the exception names none the whole batch is dead-lettered when the policy says so.
 * A dead-lettered record is left out of the next delivery of its batch. A dead-letter publish that
 * fails delivers the records again, and the next failure tries the dead-letter topic again: nothing
 * is lost. Attempts are counted in memory per group and partition, for the record that holds it. A
 * record dead-lettered before, by this application or by one that stopped or died before it
 * committed the record's offset, is not published again ({@link KafkaDeadLetters}' marks).
 */
public final class InboxAfterRollbackProcessor implements AfterRollbackProcessor<Object, Object> {

    private static final Logger log = LoggerFactory.getLogger(InboxAfterRollbackProcessor.class);

    private final KafkaDeadLetters deadLetters;
    private final KafkaInboxInterceptor interceptor;
    private final OutcomeRecorder recorder;
    private final DeliveryPolicy policy;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Map<Holder, Failures> failures = new ConcurrentHashMap<>();

    /** A group's partition. */
    private record Holder(@Nullable String group, String topic, int partition) {
    }

    /** The failed attempts at the record at {@code offset}. */
    private record Failures(long offset, int attempts) {
    }

    /**
     * A processor retrying each failed delivery as {@code policy} decides.
     *
     * @param deadLetters where a record goes when the policy dead-letters it
     * @param interceptor the inbox interceptor of the same container factory
     * @param recorder counts the deliveries rolled back in layer {@code message}
     * @param policy the delivery policy of the container factory; its {@code maxDeliveries} is the
     *     number of attempts at a record
     * @param initialBackoff the wait before the second attempt; it doubles up to {@code maxBackoff}
     * @param maxBackoff the longest wait between two attempts
     */
    public InboxAfterRollbackProcessor(KafkaDeadLetters deadLetters, KafkaInboxInterceptor interceptor,
            OutcomeRecorder recorder, DeliveryPolicy policy, Duration initialBackoff, Duration maxBackoff) {
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.initialBackoff = Objects.requireNonNull(initialBackoff, "initialBackoff");
        this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
    }

    @Override
    public void process(List<ConsumerRecord<Object, Object>> list, Consumer<Object, Object> consumer,
            @Nullable MessageListenerContainer container, Exception exception, boolean recoverable, EOSMode eosMode) {
        if (list.isEmpty()) {
            return;
        }
        ConsumerRecord<Object, Object> failed = list.get(0);
        if (recoverable) {
            int attempt = count(consumer, failed);
            if (policy.failed(listenerFailure(exception), attempt) instanceof DeliveryPolicy.Decision.DeadLetter dead
                    && deadLetter(List.of(failed), failed, consumer, exception, dead.reason(), false)) {
                seekToFirst(list.subList(1, list.size()), consumer);
                return;
            }
        }
        seekToFirst(list, consumer);
        recorder.record(MessageLayerCounting.LAYER, "redelivered", endpoint(consumer));
        sleep(container, attemptsAt(consumer, failed));
    }

    @Override
    public void processBatch(ConsumerRecords<Object, Object> batch, List<ConsumerRecord<Object, Object>> list,
            Consumer<Object, Object> consumer, @Nullable MessageListenerContainer container, Exception exception,
            boolean recoverable, EOSMode eosMode) {
        handleFailedBatch(list, consumer, container, exception);
    }

    /**
     * After the transaction of a batch rolled back: seeks the batch's partitions back to its first
     * records and waits the back-off, or, when the policy dead-letters the failed record (the whole
     * batch when the exception names no record), dead-letters it and leaves it out of the next
     * delivery.
     *
     * @param list the batch as polled
     * @param consumer the consumer
     * @param container the container, for a sleep that ends when it stops
     * @param exception what the listener threw
     */
    public void handleFailedBatch(List<ConsumerRecord<Object, Object>> list, Consumer<Object, Object> consumer,
            @Nullable MessageListenerContainer container, Exception exception) {
        if (list.isEmpty()) {
            return;
        }
        seekToFirst(list, consumer);
        ConsumerRecord<Object, Object> failed = failedRecord(exception, list);
        ConsumerRecord<Object, Object> counted = failed != null ? failed : list.get(0);
        int attempt = count(consumer, counted);
        DeliveryPolicy.Decision decision = policy.failed(listenerFailure(exception), attempt);
        if (!(decision instanceof DeliveryPolicy.Decision.DeadLetter dead)) {
            recorder.record(MessageLayerCounting.LAYER, "redelivered", endpoint(consumer));
            sleep(container, attempt);
            return;
        }
        List<ConsumerRecord<Object, Object>> records = new ArrayList<>();
        for (ConsumerRecord<Object, Object> record : failed != null ? List.of(failed) : list) {
            if (!interceptor.leftOut(record, consumer)) {
                records.add(record);
            }
        }
        deadLetter(records, counted, consumer, exception, dead.reason(), true);
    }

    /**
     * Dead-letters {@code records}; those of a batch ({@code batch}) are marked to be left out of its
     * next delivery (a record listener's are sought past instead).
     *
     * @return false when a publish failed: the records are delivered again, and the next failure of
     *     {@code counted} tries the dead-letter topic again
     */
    private boolean deadLetter(List<ConsumerRecord<Object, Object>> records, ConsumerRecord<Object, Object> counted,
            Consumer<Object, Object> consumer, Exception exception, String reason, boolean batch) {
        List<ConsumerRecord<Object, Object>> sent = new ArrayList<>();
        try {
            for (ConsumerRecord<Object, Object> record : records) {
                if (batch) {
                    interceptor.skipOnRedelivery(record, consumer);
                }
                deadLetters.publish(record, consumer, exception, reason);
                sent.add(record);
            }
        } catch (RuntimeException e) {
            for (ConsumerRecord<Object, Object> record : records) {
                if (batch && !sent.contains(record)) {
                    interceptor.forget(record, consumer);
                }
            }
            failures.put(holder(consumer, counted), new Failures(counted.offset(), policy.maxDeliveries() - 1));
            log.error("OnlyOnce could not dead-letter {}-{}@{} ({}); it is delivered again: {}", counted.topic(),
                    counted.partition(), counted.offset(), reason, e.toString());
            return false;
        }
        failures.remove(holder(consumer, counted));
        return true;
    }

    /**
     * Forgets the failures counted for the records of a batch whose transaction committed.
     *
     * @param records the records of the batch
     * @param consumer the consumer that polled them
     */
    public void committed(Iterable<ConsumerRecord<Object, Object>> records, Consumer<?, ?> consumer) {
        if (failures.isEmpty()) {
            return;
        }
        for (ConsumerRecord<Object, Object> record : records) {
            failures.computeIfPresent(holder(consumer, record),
                    (holder, counted) -> counted.offset() == record.offset() ? null : counted);
        }
    }

    /** Counts a failed attempt at {@code record}: the number of this attempt, 1 for the first. */
    private int count(Consumer<?, ?> consumer, ConsumerRecord<?, ?> record) {
        return failures.compute(holder(consumer, record), (holder, counted) ->
                counted == null || counted.offset() != record.offset() ? new Failures(record.offset(), 1)
                        : new Failures(record.offset(), counted.attempts() + 1)).attempts();
    }

    private int attemptsAt(Consumer<?, ?> consumer, ConsumerRecord<?, ?> record) {
        Failures counted = failures.get(holder(consumer, record));
        return counted == null || counted.offset() != record.offset() ? 1 : Math.max(1, counted.attempts());
    }

    private static Holder holder(Consumer<?, ?> consumer, ConsumerRecord<?, ?> record) {
        return new Holder(consumer.groupMetadata().groupId(), record.topic(), record.partition());
    }

    /**
     * The listener's own failure: {@code exception} without Spring Kafka's wrappers around it
     * ({@link ListenerExecutionFailedException}, and a {@link BatchListenerFailedException} that
     * names the record of a cause).
     */
    static Throwable listenerFailure(Throwable exception) {
        Throwable failure = exception;
        while ((failure instanceof ListenerExecutionFailedException || failure instanceof BatchListenerFailedException)
                && failure.getCause() != null && failure.getCause() != failure) {
            failure = failure.getCause();
        }
        return failure;
    }

    private void sleep(@Nullable MessageListenerContainer container, int attempts) {
        long wait = initialBackoff.toMillis();
        for (int i = 1; i < attempts && wait < maxBackoff.toMillis(); i++) {
            wait *= 2;
        }
        wait = Math.min(wait, maxBackoff.toMillis());
        if (wait <= 0) {
            return;
        }
        try {
            ListenerUtils.stoppableSleep(container, wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Seeks each partition of {@code list} back to its first record in it. */
    private static void seekToFirst(List<ConsumerRecord<Object, Object>> list, Consumer<Object, Object> consumer) {
        Map<TopicPartition, Long> first = new HashMap<>();
        for (ConsumerRecord<Object, Object> record : list) {
            first.merge(new TopicPartition(record.topic(), record.partition()), record.offset(), Math::min);
        }
        first.forEach(consumer::seek);
    }

    private static @Nullable ConsumerRecord<Object, Object> failedRecord(Throwable exception,
            List<ConsumerRecord<Object, Object>> list) {
        for (Throwable t = exception; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BatchListenerFailedException failed) {
                ConsumerRecord<?, ?> record = failed.getRecord();
                if (record != null) {
                    for (ConsumerRecord<Object, Object> candidate : list) {
                        if (candidate.topic().equals(record.topic()) && candidate.partition() == record.partition()
                                && candidate.offset() == record.offset()) {
                            return candidate;
                        }
                    }
                }
                int index = failed.getIndex();
                if (index >= 0 && index < list.size()) {
                    return list.get(index);
                }
                return null;
            }
        }
        return null;
    }

    private static String endpoint(Consumer<?, ?> consumer) {
        String group = consumer.groupMetadata().groupId();
        return "consumer " + (group == null ? "" : group);
    }
}
