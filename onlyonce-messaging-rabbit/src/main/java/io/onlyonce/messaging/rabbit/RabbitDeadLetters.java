package io.onlyonce.messaging.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;

/**
 * Replays dead letters: moves messages from a dead-letter queue back to the queue they were
 * consumed from, each acked on the dead-letter queue only after its republish was confirmed.
 *
 * <p>A replayed message goes to its {@link DeadLetterHeaders#ORIGINAL_QUEUE} through the default
 * exchange (only the consumer that gave up sees it again; the other consumers bound to the original
 * exchange already have it) and keeps its body, message id, content type and headers, with the
 * {@link DeadLetterHeaders#ORIGINAL_EXCHANGE} and {@link DeadLetterHeaders#ORIGINAL_ROUTING_KEY}
 * (a consumer sees exchange {@code ""} and the queue name as routing key); the other dead-letter
 * headers and the broker's {@code x-death} history are removed. Messages the broker dead-lettered
 * itself (a quorum queue's delivery limit) are sent back to the queue their {@code x-death} names.
 * Replaying the same message twice is harmless: the consumer's inbox drops the second.
 *
 * <p>Fix the cause first: a message that fails again is dead-lettered again.
 */
public final class RabbitDeadLetters {

    private static final DefaultMessagePropertiesConverter CONVERTER = new DefaultMessagePropertiesConverter();

    private final RabbitTemplate template;
    private final ConfirmedPublisher publisher;

    /**
     * Replays through {@code template} (correlated confirms, returns and mandatory: checked here),
     * waiting up to {@code confirmTimeout} for each republish.
     */
    public RabbitDeadLetters(RabbitTemplate template, Duration confirmTimeout) {
        this.template = template;
        this.publisher = new ConfirmedPublisher(template, confirmTimeout);
    }

    /**
     * Moves up to {@code max} messages from {@code deadLetterQueue} back to their queues, oldest first.
     *
     * @return how many were moved
     * @throws RabbitPublishException when a republish was not confirmed (that message stays in the
     *     dead-letter queue; the ones before it were moved)
     * @throws IllegalStateException when a message names no queue to go back to (it stays)
     */
    public int replay(String deadLetterQueue, int max) {
        Connection connection = template.getConnectionFactory().createConnection();
        Channel channel = connection.createChannel(false);
        try {
            int moved = 0;
            while (moved < max) {
                GetResponse response = channel.basicGet(deadLetterQueue, false);
                if (response == null) {
                    break;
                }
                long tag = response.getEnvelope().getDeliveryTag();
                boolean acked = false;
                try {
                    MessageProperties properties = CONVERTER.toMessageProperties(response.getProps(),
                            response.getEnvelope(), StandardCharsets.UTF_8.name());
                    String queue = originalQueue(properties);
                    if (queue == null) {
                        throw new IllegalStateException("dead letter " + properties.getMessageId() + " in "
                                + deadLetterQueue + " names no original queue");
                    }
                    publisher.publishAndWait("", queue, replayed(response.getBody(), properties),
                            properties.getMessageId());
                    channel.basicAck(tag, false);
                    acked = true;
                    moved++;
                } finally {
                    if (!acked) {
                        channel.basicNack(tag, false, true);
                    }
                }
            }
            return moved;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while replaying " + deadLetterQueue, e);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("could not replay " + deadLetterQueue + ": " + e.getMessage(), e);
        } finally {
            try {
                channel.close();
            } catch (Exception ignored) {
                // the channel is gone; anything unacked on it returns to the queue
            }
        }
    }

    private static @Nullable String originalQueue(MessageProperties properties) {
        Object queue = properties.getHeaders().get(DeadLetterHeaders.ORIGINAL_QUEUE);
        if (queue != null && !queue.toString().isEmpty()) {
            return queue.toString();
        }
        List<Map<String, ?>> deaths = properties.getXDeathHeader();
        if (deaths != null && !deaths.isEmpty() && deaths.get(0).get("queue") != null) {
            return String.valueOf(deaths.get(0).get("queue"));
        }
        return null;
    }

    private static Message replayed(byte[] body, MessageProperties source) {
        MessageProperties target = new MessageProperties();
        target.setMessageId(source.getMessageId());
        target.setContentType(source.getContentType());
        target.setContentEncoding(source.getContentEncoding());
        target.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        target.setCorrelationId(source.getCorrelationId());
        target.setType(source.getType());
        target.setAppId(source.getAppId());
        target.setTimestamp(source.getTimestamp());
        source.getHeaders().forEach((name, value) -> {
            boolean drop = value == null
                    || name.startsWith("spring_")
                    || name.equals("x-death") || name.startsWith("x-first-death-") || name.startsWith("x-last-death-")
                    || name.equals(IdempotentRabbitListener.DELIVERY_COUNT_HEADER)
                    || (name.startsWith(DeadLetterHeaders.PREFIX) && !name.equals(DeadLetterHeaders.ORIGINAL_EXCHANGE)
                            && !name.equals(DeadLetterHeaders.ORIGINAL_ROUTING_KEY));
            if (!drop) {
                target.setHeader(name, value);
            }
        });
        if (!source.getHeaders().containsKey(DeadLetterHeaders.ORIGINAL_EXCHANGE)) {
            List<Map<String, ?>> deaths = source.getXDeathHeader();
            if (deaths != null && !deaths.isEmpty()) {
                Object exchange = deaths.get(0).get("exchange");
                Object keys = deaths.get(0).get("routing-keys");
                if (exchange != null && keys instanceof List<?> list && !list.isEmpty()) {
                    target.setHeader(DeadLetterHeaders.ORIGINAL_EXCHANGE, exchange.toString());
                    target.setHeader(DeadLetterHeaders.ORIGINAL_ROUTING_KEY, String.valueOf(list.get(0)));
                }
            }
        }
        return new Message(body, target);
    }
}
