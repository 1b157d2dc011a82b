package io.onlyonce.spring.messaging;

import io.onlyonce.messaging.ConsumerStats;
import io.onlyonce.messaging.Delivery;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.MessageConsumer;
import io.onlyonce.messaging.OutboxListener;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import java.time.Duration;

/**
 * Counts what the message layer did, in layer {@code message} of the OnlyOnce statistics (and so in
 * {@code /actuator/onlyonce} and the Micrometer counter {@code onlyonce.requests}): per exchange and
 * routing key, {@code sent}, {@code retried} and {@code failed} by the relay; per consumer,
 * {@code processed}, {@code duplicate_dropped}, {@code redelivered} and {@code dead_lettered}.
 */
public final class MessageLayerCounting {

    /** The layer name. */
    public static final String LAYER = "message";

    private MessageLayerCounting() {
    }

    /** An outbox listener that counts the relay's outcomes. */
    public static OutboxListener relayListener(OutcomeRecorder recorder) {
        return new OutboxListener() {
            @Override
            public void onSent(OutboxMessage message) {
                recorder.record(LAYER, "sent", destination(message));
            }

            @Override
            public void onRetry(OutboxMessage message, int attempt, Throwable error, Duration nextAttemptIn) {
                recorder.record(LAYER, "retried", destination(message));
            }

            @Override
            public void onFailed(OutboxMessage message, int attempts, Throwable error) {
                recorder.record(LAYER, "failed", destination(message));
            }
        };
    }

    /** {@code consumer}, counting each delivery's outcome. */
    public static MessageConsumer counted(MessageConsumer consumer, OutcomeRecorder recorder) {
        return new MessageConsumer() {
            @Override
            public String name() {
                return consumer.name();
            }

            @Override
            public Delivery process(InboundMessage message) {
                Delivery delivery = consumer.process(message);
                String outcome = switch (delivery.kind()) {
                    case PROCESSED -> "processed";
                    case DUPLICATE -> "duplicate_dropped";
                    case RETRY -> "redelivered";
                    case DEAD_LETTER -> "dead_lettered";
                };
                recorder.record(LAYER, outcome, "consumer " + consumer.name());
                return delivery;
            }

            @Override
            public ConsumerStats stats() {
                return consumer.stats();
            }
        };
    }

    private static String destination(OutboxMessage message) {
        return "outbox " + message.exchange() + " " + message.routingKey();
    }
}
