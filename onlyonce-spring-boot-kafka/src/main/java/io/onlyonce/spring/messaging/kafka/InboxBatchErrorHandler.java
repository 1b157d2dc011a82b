package io.onlyonce.spring.messaging.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The error handler of OnlyOnce's batch container factory: the failed batch's transaction has
 * rolled back already ({@link InboxBatchListener}); the batch is sought back and delivered again,
 * and dead-lettered as {@link InboxAfterRollbackProcessor#handleFailedBatch} decides. No offset is
 * committed for a failed batch.
 */
public final class InboxBatchErrorHandler implements CommonErrorHandler {

    private final InboxAfterRollbackProcessor processor;

    /**
     * A handler deciding through {@code processor}.
     *
     * @param processor the retry and dead-letter decisions
     */
    public InboxBatchErrorHandler(InboxAfterRollbackProcessor processor) {
        this.processor = Objects.requireNonNull(processor, "processor");
    }

    @Override
    public boolean seeksAfterHandling() {
        return true;
    }

    @Override
    public boolean isAckAfterHandle() {
        return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void handleBatch(Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
            MessageListenerContainer container, Runnable invokeListener) {
        List<ConsumerRecord<Object, Object>> list = new ArrayList<>(data.count());
        ((ConsumerRecords<Object, Object>) data).forEach(list::add);
        processor.handleFailedBatch(list, (Consumer<Object, Object>) consumer, container, thrownException);
    }
}
