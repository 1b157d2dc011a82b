package io.onlyonce.spring.messaging.kafka;

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
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.ListenerUtils;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * What OnlyOnce's Kafka listener containers do after the transaction of a failed delivery rolled
 * back (the inbox row and the listener's writes with it): the records are delivered again after a
 * back-off, and once a record has failed {@code maxAttempts} times it is published to
 * {@code <topic>.DLT} with the reason, and the partition goes on with the records after it.
 *
 * <p>For a record listener this is Spring Kafka's {@link DefaultAfterRollbackProcessor}. For a batch
 * listener ({@link InboxBatchErrorHandler}) the batch is delivered again whole (its transaction
 * rolled back whole); the record that
 * failed is the one a {@link BatchListenerFailedException} names, and when the exception names none
 * the whole batch is dead-lettered after its attempts. A dead-lettered record is left out of the
 * next delivery of its batch.
 */
public final class InboxAfterRollbackProcessor implements AfterRollbackProcessor<Object, Object> {

    private static final Logger log = LoggerFactory.getLogger(InboxAfterRollbackProcessor.class);

    private final DefaultAfterRollbackProcessor<Object, Object> records;
    private final KafkaDeadLetters deadLetters;
    private final KafkaInboxInterceptor interceptor;
    private final OutcomeRecorder recorder;
    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Map<KafkaInboxInterceptor.RecordPosition, Integer> batchFailures = new ConcurrentHashMap<>();
    private final ThreadLocal<Boolean> recovered = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /**
     * A processor retrying each failed delivery up to {@code maxAttempts} times in all.
     *
     * @param deadLetters where a record goes after its last attempt
     * @param interceptor the inbox interceptor of the same container factory
     * @param recorder counts the deliveries rolled back in layer {@code message}
     * @param maxAttempts how many times a record is tried, at least 1
     * @param initialBackoff the wait before the second attempt; it doubles up to {@code maxBackoff}
     * @param maxBackoff the longest wait between two attempts
     */
    public InboxAfterRollbackProcessor(KafkaDeadLetters deadLetters, KafkaInboxInterceptor interceptor,
            OutcomeRecorder recorder, int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.maxAttempts = maxAttempts;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
        ExponentialBackOff doubling = new ExponentialBackOff(Math.max(1, initialBackoff.toMillis()), 2.0);
        doubling.setMaxInterval(Math.max(1, maxBackoff.toMillis()));
        BackOff backOff = retries(doubling, maxAttempts - 1);
        ConsumerAwareRecordRecoverer recoverer = (record, consumer, exception) -> {
            recovered.set(Boolean.TRUE);
            deadLetters.accept(record, consumer, exception);
        };
        this.records = new DefaultAfterRollbackProcessor<>(recoverer, backOff);
    }

    /**
     * {@code delegate}'s waits, stopping after {@code retries} of them. Counted here rather than with
     * {@code ExponentialBackOff.setMaxAttempts}, whose parameter is an {@code int} on Spring Framework
     * 6.2 and a {@code long} on 7, so that one binary runs on both.
     */
    static BackOff retries(BackOff delegate, int retries) {
        return () -> {
            BackOffExecution waits = delegate.start();
            int[] taken = {0};
            return () -> taken[0]++ < retries ? waits.nextBackOff() : BackOffExecution.STOP;
        };
    }

    @Override
    public void process(List<ConsumerRecord<Object, Object>> list, Consumer<Object, Object> consumer,
            @Nullable MessageListenerContainer container, Exception exception, boolean recoverable, EOSMode eosMode) {
        recovered.set(Boolean.FALSE);
        try {
            records.process(list, consumer, container, exception, recoverable, eosMode);
        } finally {
            if (!recovered.get() && !list.isEmpty()) {
                recorder.record(MessageLayerCounting.LAYER, "redelivered", endpoint(consumer));
            }
            recovered.remove();
        }
    }

    @Override
    public void processBatch(ConsumerRecords<Object, Object> batch, List<ConsumerRecord<Object, Object>> list,
            Consumer<Object, Object> consumer, @Nullable MessageListenerContainer container, Exception exception,
            boolean recoverable, EOSMode eosMode) {
        handleFailedBatch(list, consumer, container, exception);
    }

    /**
     * After the transaction of a batch rolled back: seeks the batch's partitions back to its first
     * records and waits the back-off, or, at the last attempt of the failed record, dead-letters it
     * (the whole batch when the exception names no record) and leaves it out of the next delivery.
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
        seekToBeginning(list, consumer);
        ConsumerRecord<Object, Object> failed = failedRecord(exception, list);
        KafkaInboxInterceptor.RecordPosition key = KafkaInboxInterceptor.RecordPosition.of(failed != null ? failed : list.get(0));
        int attempts = batchFailures.merge(key, 1, Integer::sum);
        if (attempts < maxAttempts) {
            recorder.record(MessageLayerCounting.LAYER, "redelivered", endpoint(consumer));
            sleep(container, attempts);
            return;
        }
        batchFailures.remove(key);
        List<ConsumerRecord<Object, Object>> dead = failed != null ? List.of(failed) : list;
        List<ConsumerRecord<Object, Object>> sent = new ArrayList<>();
        try {
            for (ConsumerRecord<Object, Object> record : dead) {
                interceptor.skipOnRedelivery(record);
                deadLetters.accept(record, consumer, exception);
                sent.add(record);
            }
        } catch (RuntimeException e) {
            for (ConsumerRecord<Object, Object> record : dead) {
                if (!sent.contains(record)) {
                    interceptor.forget(record);
                }
            }
            // the next failure of the batch tries the dead-letter topic again
            batchFailures.put(key, maxAttempts - 1);
            log.error("OnlyOnce could not dead-letter a record of a failed batch; the batch is delivered again: {}",
                    e.toString());
        }
    }

    /**
     * Forgets the failures counted for the records of a batch whose transaction committed.
     *
     * @param records the records of the batch
     */
    public void committed(Iterable<ConsumerRecord<Object, Object>> records) {
        if (batchFailures.isEmpty()) {
            return;
        }
        for (ConsumerRecord<Object, Object> record : records) {
            batchFailures.remove(KafkaInboxInterceptor.RecordPosition.of(record));
        }
    }

    @Override
    public void clearThreadState() {
        records.clearThreadState();
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

    private static void seekToBeginning(List<ConsumerRecord<Object, Object>> list, Consumer<Object, Object> consumer) {
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
