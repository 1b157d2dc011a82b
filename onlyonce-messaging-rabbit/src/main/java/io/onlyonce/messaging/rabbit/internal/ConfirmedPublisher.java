package io.onlyonce.messaging.rabbit.internal;

import io.onlyonce.messaging.UnroutableMessageException;
import io.onlyonce.messaging.rabbit.RabbitPublishException;
import io.onlyonce.messaging.rabbit.RabbitPublishException.Reason;
import java.time.Duration;
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
public final class ConfirmedPublisher {

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
        CompletableFuture<Void> result = new CompletableFuture<>();
        String base = messageId == null ? "no-id" : messageId;
        CorrelationData correlation = new CorrelationData(base + "#" + INSTANCE + "-" + sequence.incrementAndGet());
        try {
            template.send(exchange, routingKey, message, correlation);
        } catch (RuntimeException e) {
            result.completeExceptionally(new RabbitPublishException(Reason.NOT_SENT, messageId,
                    "message " + messageId + " was not sent to exchange '" + exchange + "': " + e.getMessage(), e));
            return result;
        }
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
