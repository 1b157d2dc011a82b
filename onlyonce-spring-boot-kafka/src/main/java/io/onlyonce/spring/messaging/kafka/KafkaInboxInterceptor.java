package io.onlyonce.spring.messaging.kafka;

import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.DeliveryPolicy;
import io.onlyonce.messaging.JdbcInbox;
import io.onlyonce.spring.messaging.MessageLayerCounting;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The inbox step of OnlyOnce's Kafka listener container factories: inside the transaction the
 * container opened on the application's {@code DataSource}, before the {@code @KafkaListener}
 * method runs, it inserts {@code (group id, message id)} into the inbox through that transaction's
 * connection. What becomes of a record is the {@link DeliveryPolicy}'s answer, as on the Kafka
 * module's consumer: a record without a {@code message-id} header, or with one that is not 1 to 255
 * visible ASCII characters ({@link DeliveryPolicy#unusable}), is published to the dead-letter topic
 * with the policy's reason ({@code missing message id}, {@code malformed message id (…)}) and not
 * passed on; a record whose pair is in the inbox already is a duplicate, which the policy
 * acknowledges: it is dropped (the listener does not run, its offset is committed) and counted. For
 * a batch listener the duplicates, the unusable records and the records already dead-lettered after
 * a failed batch are taken out of the batch handed on.
 *
 * <p>A record that is dead-lettered is marked in the inbox table first ({@link KafkaDeadLetters}), so
 * that it reaches the dead-letter topic once per group also when it is delivered again after a
 * restart or a kill; within a running application a batch's dead-lettered records are also kept in
 * memory, per group, to leave them out of the batch's next delivery without asking the database.
 *
 * <p>The row commits or rolls back with whatever the listener writes through the same
 * {@code DataSource}: an exception from the listener rolls both back, and the
 * {@link InboxAfterRollbackProcessor} asks the policy whether the record is delivered again or
 * dead-lettered.
 */
public final class KafkaInboxInterceptor implements RecordInterceptor<Object, Object>, BatchInterceptor<Object, Object> {

    /** The header holding the message id, as the Kafka transport sends it. */
    public static final String MESSAGE_ID_HEADER = "message-id";

    private final DataSource dataSource;
    private final JdbcInbox inbox;
    private final KafkaDeadLetters deadLetters;
    private final OutcomeRecorder recorder;
    private final DeliveryPolicy policy;
    /** The records of batches dead-lettered and left out until a delivery without them commits, per group. */
    private final Set<LeftOut> deadLettered = ConcurrentHashMap.newKeySet();

    /** What the inbox step made of a record. */
    private enum Admission { ADMITTED, DUPLICATE, DEAD_LETTERED }

    /**
     * An interceptor recording in {@code inbox} on {@code dataSource}.
     *
     * @param dataSource the data source of the container's transaction manager
     * @param inbox the inbox table
     * @param deadLetters where records without a valid message id go
     * @param recorder counts the outcomes in layer {@code message}
     * @param policy the delivery policy of the container factory
     */
    public KafkaInboxInterceptor(DataSource dataSource, JdbcInbox inbox, KafkaDeadLetters deadLetters,
            OutcomeRecorder recorder, DeliveryPolicy policy) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.inbox = Objects.requireNonNull(inbox, "inbox");
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    @Override
    public @Nullable ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
            Consumer<Object, Object> consumer) {
        String group = groupId(consumer);
        return admit(record, consumer, group) == Admission.ADMITTED ? record : null;
    }

    @Override
    public @Nullable ConsumerRecords<Object, Object> intercept(ConsumerRecords<Object, Object> records,
            Consumer<Object, Object> consumer) {
        String group = groupId(consumer);
        Map<TopicPartition, List<ConsumerRecord<Object, Object>>> admitted = new LinkedHashMap<>();
        int kept = 0;
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<Object, Object>> list = new ArrayList<>();
            for (ConsumerRecord<Object, Object> record : records.records(partition)) {
                LeftOut position = new LeftOut(group, RecordPosition.of(record));
                if (deadLettered.contains(position)) {
                    leaveOutUntilCommitted(position);
                    continue;
                }
                Admission admission = admit(record, consumer, group);
                if (admission == Admission.ADMITTED) {
                    list.add(record);
                } else if (admission == Admission.DEAD_LETTERED) {
                    deadLettered.add(position);
                    leaveOutUntilCommitted(position);
                }
            }
            if (!list.isEmpty()) {
                admitted.put(partition, list);
                kept += list.size();
            }
        }
        if (kept == 0) {
            return null;
        }
        return kept == records.count() ? records : PolledRecords.of(admitted, records);
    }
    /**
     * A record of a batch that was dead-lettered stays left out of the batch's deliveries until a
     * transaction that left it out commits (its offset is committed after it), so that a batch rolled
     * back again does not dead-letter it twice.
     */
    private void leaveOutUntilCommitted(LeftOut position) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    if (status == STATUS_COMMITTED) {
                        deadLettered.remove(position);
                    }
                }
            });
        }
    }

    /** Marks {@code record} dead-lettered by {@code consumer}'s group: the next delivery of its batch leaves it out. */
    void skipOnRedelivery(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer) {
        deadLettered.add(new LeftOut(groupId(consumer), RecordPosition.of(record)));
    }

    /** Forgets {@code record}'s mark (its dead-lettering failed). */
    void forget(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer) {
        deadLettered.remove(new LeftOut(groupId(consumer), RecordPosition.of(record)));
    }

    /** Whether {@code record} is left out of its batch's next delivery to {@code consumer}'s group (it was dead-lettered). */
    boolean leftOut(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer) {
        return deadLettered.contains(new LeftOut(groupId(consumer), RecordPosition.of(record)));
    }

    private Admission admit(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer, String group) {
        String id = messageId(record);
        // the value is the application's deserializer's to read: only the id is the policy's to check here
        String unusable = DeliveryPolicy.unusable(id, "");
        if (unusable != null) {
            deadLetters.publish(record, consumer, new InvalidMessageIdException(unusable + ": " + record.topic() + "-"
                    + record.partition() + "@" + record.offset()), unusable);
            return Admission.DEAD_LETTERED;
        }
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("OnlyOnce's Kafka inbox runs inside the container's transaction on the "
                    + "DataSource; use the container factory onlyOnceKafkaListenerContainerFactory or "
                    + "onlyOnceKafkaBatchListenerContainerFactory unchanged");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        boolean first;
        try {
            first = inbox.record(connection, group, Objects.requireNonNull(id));
        } catch (SQLException e) {
            throw new IllegalStateException("the inbox row of " + id + " could not be written: " + e.getMessage(), e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
        String endpoint = "consumer " + group;
        if (!first) {
            DeliveryPolicy.Decision decision = policy.decide(Delivery.DUPLICATE, 1);
            if (decision instanceof DeliveryPolicy.Decision.Acknowledge acknowledge && acknowledge.duplicate()) {
                recorder.record(MessageLayerCounting.LAYER, "duplicate_dropped", endpoint);
                return Admission.DUPLICATE;
            }
            throw new IllegalStateException("the delivery policy did not acknowledge a duplicate: " + decision);
        }
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    recorder.record(MessageLayerCounting.LAYER, "processed", endpoint);
                }
            });
        }
        return Admission.ADMITTED;
    }

    /** The group id the inbox rows are namespaced by. */
    static String groupId(Consumer<?, ?> consumer) {
        String group = consumer.groupMetadata().groupId();
        if (group == null || group.isBlank()) {
            throw new IllegalStateException("a listener on OnlyOnce's Kafka container factories needs a group id"
                    + " (@KafkaListener(groupId = ...) or spring.kafka.consumer.group-id): it names its inbox rows");
        }
        return group;
    }

    /**
     * The record's {@code message-id} header as text, as the Kafka module's consumer reads it: null
     * when there is none, U+FFFD when it is not UTF-8 (which {@link DeliveryPolicy#unusable} refuses).
     */
    static @Nullable String messageId(ConsumerRecord<?, ?> record) {
        Header header = record.headers().lastHeader(MESSAGE_ID_HEADER);
        if (header == null || header.value() == null) {
            return null;
        }
        String text = DeliveryPolicy.utf8(header.value());
        return text == null ? "\uFFFD" : text;
    }

    /** Where a record sits. */
    record RecordPosition(String topic, int partition, long offset) {
        static RecordPosition of(ConsumerRecord<?, ?> record) {
            return new RecordPosition(record.topic(), record.partition(), record.offset());
        }
    }

    /** A record of a group's batch left out of its deliveries. */
    private record LeftOut(String group, RecordPosition position) {
    }

    /** Why a record was dead-lettered without reaching the listener: the policy's reason and where the record sits. */
    public static final class InvalidMessageIdException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidMessageIdException(String message) {
            super(message);
        }
    }
}
