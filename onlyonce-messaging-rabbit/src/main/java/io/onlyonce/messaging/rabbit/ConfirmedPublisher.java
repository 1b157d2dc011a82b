package io.onlyonce.messaging.rabbit;

import io.onlyonce.messaging.UnroutableMessageException;
import io.onlyonce.messaging.rabbit.RabbitPublishException.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.ReturnedMessage;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * Publishes one message on a {@link RabbitTemplate} with a {@link CorrelationData} and turns the
 * correlated confirm into a future: normal completion only for an ack of a message that was not
 * returned; a {@link RabbitPublishException} for a nack, a timeout or a failed send, an
 * {@link UnroutableMessageException} for a returned message. Shared by the transport and the listener's dead-letter publish.
 *
 * <p>The correlation id is the message id plus a per-publish suffix: Spring AMQP matches a returned
 * message to its confirm by the correlation id, per channel, so two publishes of the same message
 * in flight at once (a relay re-sending while the first confirm is pending) need distinct ids.
 */
final class ConfirmedPublisher {

    private static final String INSTANCE = UUID.randomUUID().toString().substring(0, 8);

    private final RabbitTemplate template;
    private final long timeoutMillis;
    private final AtomicLong sequence = new AtomicLong();

    /**
     * @throws IllegalArgumentException when the template's connection factory is not set for
     *     correlated confirms and returns, or the template does not publish as mandatory
     */
    public ConfirmedPublisher(RabbitTemplate template, Duration timeout) {
        this.template = Objects.requireNonNull(template, "template");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the confirm timeout must be positive, was " + timeout);
        }
        this.timeoutMillis = timeout.toMillis();
        checkConfiguration(template);
    }

    /**
     * Fails fast when {@code template} could report a publish as confirmed that the broker did not
     * route or did not accept.
     */
    public static void checkConfiguration(RabbitTemplate template) {
        ConnectionFactory factory = template.getConnectionFactory();
        if (!factory.isPublisherConfirms()) {
            throw new IllegalArgumentException("the RabbitTemplate's connection factory must use correlated publisher "
                    + "confirms: CachingConnectionFactory.setPublisherConfirmType(ConfirmType.CORRELATED) "
                    + "(Spring Boot: spring.rabbitmq.publisher-confirm-type=correlated)"
                    + (factory.isSimplePublisherConfirms() ? "; SIMPLE confirms are not correlated" : ""));
        }
        if (!factory.isPublisherReturns()) {
            throw new IllegalArgumentException("the RabbitTemplate's connection factory must have publisher returns "
                    + "enabled, or an unroutable message would count as sent: "
                    + "CachingConnectionFactory.setPublisherReturns(true) "
                    + "(Spring Boot: spring.rabbitmq.publisher-returns=true)");
        }
        Message probe = new Message(new byte[0], new MessageProperties());
        if (!Boolean.TRUE.equals(template.isMandatoryFor(probe))) {
            throw new IllegalArgumentException("the RabbitTemplate must publish as mandatory, or an unroutable message "
                    + "would be dropped silently: RabbitTemplate.setMandatory(true) "
                    + "(Spring Boot: spring.rabbitmq.template.mandatory=true)");
        }
    }

    /**
     * Publishes {@code message}; the future completes when the broker confirmed it, or exceptionally
     * with a {@link RabbitPublishException} or an {@link UnroutableMessageException}.
     */
    public CompletableFuture<Void> publish(String exchange, String routingKey, Message message, @Nullable String messageId) {
        CorrelationData correlation = correlation(messageId);
        try {
            template.send(exchange, routingKey, message, correlation);
        } catch (RuntimeException e) {
            return notSent(exchange, messageId, e);
        }
        return settle(correlation, messageId);
    }

    /** One message of a {@link #publishAll} batch. */
    public record Outgoing(String exchange, String routingKey, Message message, @Nullable String messageId) {
    }

    /**
     * Publishes {@code batch} on one channel and waits, on the calling thread, at most the timeout for
     * the confirms of the whole batch together, then releases the channel; returns one future per
     * message, in order, each completing as {@link #publish}'s does (already complete for the messages
     * the broker confirmed or returned within the timeout).
     *
     * <p>Each message is judged on its own: a returned (unroutable) or nacked message fails only its
     * own future. When the channel fails under the batch (a channel error such as a missing exchange
     * closes it), the messages not yet handed to it go on a new channel; those already handed to the
     * closed channel and not yet confirmed are nacked ({@code NACKED}). When no channel can be had
     * (no connection), every message not yet sent fails with {@code NOT_SENT}.
     */
    public List<CompletableFuture<Void>> publishAll(List<Outgoing> batch) {
        int size = batch.size();
        List<CompletableFuture<Void>> results = new ArrayList<>(Collections.nCopies(size, null));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        int next = 0;
        while (next < size) {
            int from = next;
            int[] sent = {from};
            boolean[] onChannel = {false};
            try {
                template.invoke(operations -> {
                    onChannel[0] = true;
                    for (int i = from; i < size; i++) {
                        Outgoing outgoing = batch.get(i);
                        CorrelationData correlation = correlation(outgoing.messageId());
                        operations.send(outgoing.exchange(), outgoing.routingKey(), outgoing.message(), correlation);
                        results.set(i, settle(correlation, outgoing.messageId()));
                        sent[0] = i + 1;
                    }
                    awaitConfirms(operations, deadline);
                    return null;
                });
                next = size;
            } catch (RuntimeException e) {
                if (!onChannel[0]) {
                    // no channel: nothing more can be sent now
                    for (int i = from; i < size; i++) {
                        Outgoing outgoing = batch.get(i);
                        results.set(i, notSent(outgoing.exchange(), outgoing.messageId(), e));
                    }
                    return results;
                }
                if (sent[0] == from) {
                    // the channel refused the first message it was given: that message fails, the rest go on
                    Outgoing outgoing = batch.get(from);
                    results.set(from, notSent(outgoing.exchange(), outgoing.messageId(), e));
                    next = from + 1;
                } else {
                    next = sent[0]; // the channel failed under the batch: the rest go on a new one
                }
            }
        }
        return results;
    }

    /**
     * Waits for the confirms of everything sent on the scoped channel, so that it goes back to the
     * cache without pending confirms; a timeout, a nack or a closed channel is each message's own
     * future's business.
     */
    private static void awaitConfirms(RabbitOperations operations, long deadline) {
        long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (remaining <= 0) {
            return;
        }
        try {
            operations.waitForConfirms(remaining);
        } catch (RuntimeException e) {
            // timed out or the channel closed: the futures time out or were nacked
        }
    }

    private CorrelationData correlation(@Nullable String messageId) {
        String base = messageId == null ? "no-id" : messageId;
        return new CorrelationData(base + "#" + INSTANCE + "-" + sequence.incrementAndGet());
    }

    private static CompletableFuture<Void> notSent(String exchange, @Nullable String messageId, RuntimeException e) {
        return CompletableFuture.failedFuture(new RabbitPublishException(Reason.NOT_SENT, messageId,
                "message " + messageId + " was not sent to exchange '" + exchange + "': " + e.getMessage(), e));
    }

    /** The future of a sent message: its correlated confirm, judged with its return, bounded by the timeout. */
    private CompletableFuture<Void> settle(CorrelationData correlation, @Nullable String messageId) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        correlation.getFuture().whenComplete((confirm, error) -> {
            if (error != null) {
                result.completeExceptionally(new RabbitPublishException(Reason.NACKED, messageId,
                        "message " + messageId + " was not confirmed: " + error.getMessage(), error));
            } else if (!confirm.isAck()) { // isAck and getReason: Spring AMQP 3.2 has no record accessors
                result.completeExceptionally(new RabbitPublishException(Reason.NACKED, messageId,
                        "message " + messageId + " was nacked by the broker"
                                + (confirm.getReason() == null ? "" : ": " + confirm.getReason()), null));
            } else {
                ReturnedMessage returned = correlation.getReturned();
                if (returned != null) {
                    result.completeExceptionally(new UnroutableMessageException("message " + messageId
                            + " is unroutable: no queue is bound to exchange '" + returned.getExchange()
                            + "' with routing key '" + returned.getRoutingKey() + "' (" + returned.getReplyCode()
                            + " " + returned.getReplyText() + ")"));
                } else {
                    result.complete(null);
                }
            }
        });
        if (result.isDone()) {
            return result;
        }
        CompletableFuture<Void> out = new CompletableFuture<>();
        result.orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).whenComplete((ignored, error) -> {
            if (error == null) {
                out.complete(null);
            } else if (error instanceof TimeoutException) {
                out.completeExceptionally(new RabbitPublishException(Reason.TIMED_OUT, messageId,
                        "message " + messageId + " was not confirmed within " + timeoutMillis + " ms", null));
            } else {
                out.completeExceptionally(error);
            }
        });
        return out;
    }

    /**
     * Publishes and waits for the confirm.
     *
     * @throws RabbitPublishException when the broker did not confirm it
     * @throws UnroutableMessageException when the broker returned it
     * @throws InterruptedException when the thread was interrupted while waiting
     */
    public void publishAndWait(String exchange, String routingKey, Message message, @Nullable String messageId)
            throws InterruptedException {
        try {
            publish(exchange, routingKey, message, messageId).get();
        } catch (ExecutionException e) {
            throw unwrap(e.getCause(), messageId);
        }
    }

    private static RuntimeException unwrap(@Nullable Throwable error, @Nullable String messageId) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof RabbitPublishException || cause instanceof UnroutableMessageException) {
            return (RuntimeException) cause;
        }
        return new RabbitPublishException(Reason.NOT_SENT, messageId, "message " + messageId + " was not published: " + cause, cause);
    }
}
