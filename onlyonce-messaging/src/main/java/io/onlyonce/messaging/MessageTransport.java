package io.onlyonce.messaging;

import java.util.concurrent.CompletableFuture;

/**
 * Publishes messages to a broker: RabbitMQ, or the in-process transport of the embedded default.
 *
 * <p>{@link #publish} returns at once; its future completes normally only when the broker has
 * confirmed the message (RabbitMQ: a publisher confirm correlated with this message, and the message
 * was routed to at least one queue: it is published as {@code mandatory}), and exceptionally when the
 * broker refused it (nack), could not route it (returned), or did not answer in time. The relay
 * marks a message sent only on normal completion. The message's {@link OutboxMessage#id()} is sent
 * as the broker's message id, so consumers can drop duplicates.
 */
public interface MessageTransport {

    /** Publishes {@code message}; the future completes when the broker confirmed it. */
    CompletableFuture<Void> publish(OutboxMessage message);
}
