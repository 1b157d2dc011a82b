package io.onlyonce.messaging.kafka;

import org.jspecify.annotations.Nullable;

/**
 * A publish that the Kafka broker did not acknowledge: the future of
 * {@link KafkaMessageTransport#publish} (and a dead-letter publish of
 * {@link IdempotentKafkaConsumer}) completes exceptionally with this; its message says why.
 */
public class KafkaPublishException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the publish failed. */
    public enum Reason {
        /** The record could not be handed to the producer (closed producer, interrupted, too large to serialise). */
        NOT_SENT,
        /** The broker refused the record (too large, not authorised, invalid topic, a fatal producer error). */
        REJECTED,
        /** No acknowledgement within the send timeout (the broker is down or unreachable, or slow). */
        TIMED_OUT,
        /** The topic does not exist (topics are not created automatically) or its metadata could not be fetched. */
        TOPIC_NOT_FOUND
    }

    private final Reason reason;
    private final @Nullable String messageId;
    private final @Nullable String topic;

    /**
     * An exception.
     *
     * @param reason why it failed
     * @param messageId the id of the message that was published, when it has one
     * @param topic the topic it was published to, when known
     * @param message the description
     * @param cause the underlying exception, if any
     */
    public KafkaPublishException(Reason reason, @Nullable String messageId, @Nullable String topic, String message,
            @Nullable Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.messageId = messageId;
        this.topic = topic;
    }

    /**
     * Why the publish failed.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * The id of the message.
     *
     * @return the id, or null when it had none
     */
    public @Nullable String messageId() {
        return messageId;
    }

    /**
     * The topic the message was published to.
     *
     * @return the topic, or null when unknown
     */
    public @Nullable String topic() {
        return topic;
    }
}
