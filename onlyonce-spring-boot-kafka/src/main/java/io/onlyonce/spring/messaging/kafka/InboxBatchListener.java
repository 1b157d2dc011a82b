package io.onlyonce.spring.messaging.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.BatchAcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.DelegatingMessageListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs a batch listener of OnlyOnce's batch container factory inside one transaction of the
 * application's transaction manager: the {@link KafkaInboxInterceptor} records the batch's message
 * ids in the inbox and takes the duplicates out, the listener runs on the rest, and the transaction
 * commits before the listener returns to the container, which commits the offsets after it. An
 * exception from the listener rolls the transaction back and reaches the container's error
 * handler ({@link InboxAfterRollbackProcessor#handleFailedBatch}), where the
 * {@link io.onlyonce.messaging.DeliveryPolicy DeliveryPolicy} decides whether the batch is
 * delivered again or its failed record dead-lettered.
 */
public final class InboxBatchListener
        implements BatchAcknowledgingConsumerAwareMessageListener<Object, Object>, DelegatingMessageListener<Object> {

    private final BatchMessageListener<Object, Object> delegate;
    private final KafkaInboxInterceptor interceptor;
    private final TransactionTemplate transactions;
    private final InboxAfterRollbackProcessor retries;

    /**
     * Wraps {@code delegate}.
     *
     * @param delegate the container's listener, as Spring Kafka made it for the {@code @KafkaListener} method
     * @param interceptor the inbox step
     * @param transactionManager the application's transaction manager on the inbox's {@code DataSource}
     * @param retries the error handling of the same factory, told of each batch that committed
     */
    public InboxBatchListener(BatchMessageListener<Object, Object> delegate, KafkaInboxInterceptor interceptor,
            PlatformTransactionManager transactionManager, InboxAfterRollbackProcessor retries) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.retries = Objects.requireNonNull(retries, "retries");
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
        this.transactions = new TransactionTemplate(transactionManager);
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.transactions.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    }

    @Override
    public Object getDelegate() {
        return delegate;
    }

    @Override
    public boolean wantsPollResult() {
        return delegate.wantsPollResult();
    }

    @Override
    public void onMessage(List<ConsumerRecord<Object, Object>> data, @Nullable Acknowledgment acknowledgment,
            @Nullable Consumer<?, ?> consumer) {
        run(ConsumerRecords.empty(), data, acknowledgment, consumer, false);
    }

    @Override
    public void onMessage(ConsumerRecords<Object, Object> records, @Nullable Acknowledgment acknowledgment,
            Consumer<Object, Object> consumer) {
        run(records, List.of(), acknowledgment, consumer, true);
    }

    @SuppressWarnings("unchecked")
    private void run(ConsumerRecords<Object, Object> records, List<ConsumerRecord<Object, Object>> list,
            @Nullable Acknowledgment acknowledgment, @Nullable Consumer<?, ?> consumer, boolean pollResult) {
        Consumer<Object, Object> kafka = (Consumer<Object, Object>) Objects.requireNonNull(consumer, "consumer");
        ConsumerRecords<Object, Object> batch = pollResult ? records : recordsOf(list);
        transactions.executeWithoutResult(status -> {
            ConsumerRecords<Object, Object> admitted = interceptor.intercept(batch, kafka);
            if (admitted == null) {
                return;
            }
            if (pollResult) {
                delegate.onMessage(admitted, acknowledgment, kafka);
            } else {
                List<ConsumerRecord<Object, Object>> rest = new ArrayList<>(admitted.count());
                admitted.forEach(rest::add);
                delegate.onMessage(rest, acknowledgment, kafka);
            }
        });
        retries.committed(batch, kafka);
    }

    private static ConsumerRecords<Object, Object> recordsOf(List<ConsumerRecord<Object, Object>> list) {
        java.util.Map<TopicPartition, List<ConsumerRecord<Object, Object>>> byPartition = new java.util.LinkedHashMap<>();
        for (ConsumerRecord<Object, Object> record : list) {
            byPartition.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), p -> new ArrayList<>())
                    .add(record);
        }
        return PolledRecords.of(byPartition, null);
    }
}
