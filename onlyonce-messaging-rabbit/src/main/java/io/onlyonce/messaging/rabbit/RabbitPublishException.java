package io.onlyonce.messaging.rabbit;

import org.jspecify.annotations.Nullable;

/**
 * A publish that the broker did not confirm: the future of
 * {@link RabbitMessageTransport#publish} (and a dead-letter publish of
 * {@link IdempotentRabbitListener}) completes exceptionally with this. A message the broker
 * could not route fails with an {@link io.onlyonce.messaging.UnroutableMessageException} instead,
 * as on every transport.
 */
public class RabbitPublishException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the publish failed. */
    public enum Reason {
        /** The message could not be handed to the broker at all (no connection, channel error). */
        NOT_SENT,
        /** The broker answered with a negative acknowledgement (for example a full queue with
         * {@code x-overflow=reject-publish}), or the channel closed before it confirmed. */
        NACKED,
        /** No confirm arrived within the configured timeout. */
        TIMED_OUT
    }

    /** Why it failed. */
    private final Reason reason;
    /** The id of the message, if it had one. */
    private final @Nullable String messageId;

    /**
     * @param reason why it failed
     * @param messageId the id of the message that was published, when it has one
     * @param message the description
     * @param cause the underlying exception, if any
     */
    public RabbitPublishException(Reason reason, @Nullable String messageId, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.messageId = messageId;
    }

    /** Why the publish failed. */
    public Reason reason() {
        return reason;
    }

    /** The id of the message, or null when it had none. */
    public @Nullable String messageId() {
        return messageId;
    }
}
