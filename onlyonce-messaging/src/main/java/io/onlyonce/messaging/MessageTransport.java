package io.onlyonce.messaging;

import java.util.ArrayList;
import java.util.List;
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
 *
 * <p>The relay hands each claimed batch to {@link #publishAll} at once, and may hand over its next
 * batch before this one's futures complete; a transport that can send a batch together (Kafka:
 * every record handed to the producer, no flush; RabbitMQ: one channel, one wait for the batch's
 * confirms) overrides it, and every other transport inherits one {@link #publish} per message.
 */
public interface MessageTransport {

    /** Publishes {@code message}; the future completes when the broker confirmed it. */
    CompletableFuture<Void> publish(OutboxMessage message);

    /**
     * Publishes {@code messages} together; returns one future per message, in the same order, each
     * completing as {@link #publish}'s does. A message that could not be handed to the broker gets a
     * failed future; the others of the batch are still published. The default publishes each in turn.
     */
    default List<CompletableFuture<Void>> publishAll(List<OutboxMessage> messages) {
        List<CompletableFuture<Void>> futures = new ArrayList<>(messages.size());
        for (OutboxMessage message : messages) {
            CompletableFuture<Void> future;
            try {
                future = publish(message);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            futures.add(future != null ? future
                    : CompletableFuture.failedFuture(new IllegalStateException("the transport returned no future")));
        }
        return futures;
    }
}
