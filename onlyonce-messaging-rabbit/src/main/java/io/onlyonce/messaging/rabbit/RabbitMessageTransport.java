package io.onlyonce.messaging.rabbit;

import io.onlyonce.messaging.MessageTransport;
import io.onlyonce.messaging.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * The {@link MessageTransport} on RabbitMQ: each {@link OutboxMessage} is published on a
 * {@link RabbitTemplate} with its own correlation, and its future completes normally only when the
 * broker acked it (publisher confirm) and did not return it as unroutable. A batch
 * ({@link #publishAll}, what the relay hands over) goes on one channel, its confirms awaited together.
 *
 * <p>Required configuration, checked at construction (an {@link IllegalArgumentException} names
 * the missing setting):
 * <ul>
 *   <li>the template's connection factory: {@code setPublisherConfirmType(ConfirmType.CORRELATED)} and
 *       {@code setPublisherReturns(true)} (Boot: {@code spring.rabbitmq.publisher-confirm-type=correlated},
 *       {@code spring.rabbitmq.publisher-returns=true});</li>
 *   <li>the template: {@code setMandatory(true)} (Boot: {@code spring.rabbitmq.template.mandatory=true},
 *       which Boot already defaults to when publisher returns are on).</li>
 * </ul>
 *
 * <p>On the wire: the message id is the AMQP {@code message-id} property, every header of the
 * outbox message (the {@code X-Request-ID} among them) is an AMQP header, the body is the UTF-8
 * payload with content type {@code application/json}, and the delivery mode is persistent.
 *
 * <p>The future fails with an {@link io.onlyonce.messaging.UnroutableMessageException} when the
 * broker returned the message (exchange, routing key and reply text in its message), otherwise with a
 * {@link RabbitPublishException} whose {@link RabbitPublishException#reason()} says why: {@code NACKED},
 * {@code TIMED_OUT}, or {@code NOT_SENT} (no connection). {@link #publish} hands the message to the
 * client on the calling thread; with a broker that is down it fails at once, with one that blocks
 * publishers (memory or disk alarm) the call itself waits. Do not give the template a retry
 * template: the relay retries, with backoff.
 */
public final class RabbitMessageTransport implements MessageTransport {

    /** The confirm timeout of {@link #RabbitMessageTransport(RabbitTemplate)}: 10 seconds. */
    public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(10);

    private final ConfirmedPublisher publisher;

    /**
     * A transport that waits up to {@link #DEFAULT_CONFIRM_TIMEOUT} for each confirm.
     *
     * @throws IllegalArgumentException when the template is not configured as described above
     */
    public RabbitMessageTransport(RabbitTemplate template) {
        this(template, DEFAULT_CONFIRM_TIMEOUT);
    }

    /**
     * A transport that waits up to {@code confirmTimeout} for each confirm.
     *
     * @throws IllegalArgumentException when the template is not configured as described above, or the
     *     timeout is not positive
     */
    public RabbitMessageTransport(RabbitTemplate template, Duration confirmTimeout) {
        this.publisher = new ConfirmedPublisher(template, confirmTimeout);
    }

    @Override
    public CompletableFuture<Void> publish(OutboxMessage message) {
        return publisher.publish(message.exchange(), message.routingKey(), toAmqp(message), message.id());
    }

    /**
     * Publishes the batch on one channel of the template's connection factory and waits, on the
     * calling thread, up to the confirm timeout for the batch's confirms together, then hands the
     * channel back to the cache with no confirms pending. Each message is judged as by
     * {@link #publish}: its future completes normally only for an ack of a message that was not
     * returned, and one unroutable or nacked message fails only its own future. A channel error under
     * the batch (a missing exchange closes the channel) fails the messages already on that channel and
     * not yet confirmed with {@code NACKED}; the rest of the batch goes on a new channel. Without a
     * connection every message fails at once with {@code NOT_SENT}.
     */
    @Override
    public List<CompletableFuture<Void>> publishAll(List<OutboxMessage> messages) {
        List<ConfirmedPublisher.Outgoing> batch = new ArrayList<>(messages.size());
        for (OutboxMessage message : messages) {
            batch.add(new ConfirmedPublisher.Outgoing(message.exchange(), message.routingKey(), toAmqp(message), message.id()));
        }
        return publisher.publishAll(batch);
    }

    /** The AMQP message that {@link #publish} sends for {@code message}. */
    static Message toAmqp(OutboxMessage message) {
        MessageProperties properties = new MessageProperties();
        properties.setMessageId(message.id());
        properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
        properties.setContentEncoding(StandardCharsets.UTF_8.name());
        properties.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        message.headers().forEach(properties::setHeader);
        return new Message(message.payload().getBytes(StandardCharsets.UTF_8), properties);
    }
}
