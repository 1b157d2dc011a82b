package io.onlyonce.messaging;

/**
 * Thrown by a {@link MessageHandler} for a message that can never be processed (invalid content,
 * an entity that does not exist): the message is dead-lettered at once with this message as the
 * reason, instead of being retried.
 */
public class PermanentMessageFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PermanentMessageFailure(String reason) {
        super(reason);
    }

    public PermanentMessageFailure(String reason, Throwable cause) {
        super(reason, cause);
    }
}
