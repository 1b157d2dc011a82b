package io.onlyonce.bench.peers;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * The acknowledged RabbitMQ send of the Spring-based contenders' handlers: a persistent JSON message
 * sent with a correlation, then its confirm awaited; a nack, a return or no confirm in time fails it.
 */
public final class ConfirmedRabbitSend {

    private ConfirmedRabbitSend() {
    }

    /** Sends {@code json} with message id {@code id} to {@code exchange}, routing key {@value Destination#ROUTING_KEY}. */
    public static void send(RabbitTemplate rabbit, String exchange, String id, String json, long timeoutMillis) {
        MessageProperties properties = new MessageProperties();
        properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
        properties.setMessageId(id);
        Message message = new Message(json.getBytes(StandardCharsets.UTF_8), properties);
        CorrelationData correlation = new CorrelationData(id);
        rabbit.send(exchange, Destination.ROUTING_KEY, message, correlation);
        try {
            CorrelationData.Confirm confirm = correlation.getFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
            if (!confirm.ack() || correlation.getReturned() != null) {
                throw new IllegalStateException("not confirmed: " + confirm + ", returned " + correlation.getReturned());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("rabbit publish failed", e);
        }
    }
}
