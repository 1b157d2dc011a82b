package io.onlyonce.messaging;

/**
 * The broker could route a message to no queue: with {@code mandatory} publishing, a failure, not
 * a success. Transports complete a publish future exceptionally with it.
 */
public class UnroutableMessageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param exchange the exchange the message was published to
     * @param routingKey its routing key
     */
    public UnroutableMessageException(String exchange, String routingKey) {
        super("no queue is bound to exchange '" + exchange + "' with routing key '" + routingKey + "'");
    }

    /** An exception with its own message. */
    public UnroutableMessageException(String message) {
        super(message);
    }
}
