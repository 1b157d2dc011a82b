package io.onlyonce.spring.messaging;

import io.onlyonce.messaging.MessageHandler;
import java.util.regex.Pattern;

/**
 * An idempotent consumer of the message layer, declared as a bean: the auto-configuration binds
 * queue {@code name} to {@code exchange} with {@code routingKey} on the configured transport
 * (RabbitMQ, or the in-process one; on Kafka it consumes topic {@code exchange} in group
 * {@code name}, the records whose {@code message-type} matches {@code routingKey}), and hands each
 * message to {@code handler} inside one
 * transaction that also records {@code (name, message id)} in the inbox, so a redelivered or
 * duplicate message changes nothing.
 *
 * <pre>{@code
 * @Bean
 * ConsumerDefinition pointsConsumer(JdbcTemplate jdbc) {
 *     return ConsumerDefinition.of("points", "orders", "order.paid",
 *             (message, connection) -> jdbc.update("UPDATE users SET points = points + ? ...", ...));
 * }
 * }</pre>
 *
 * @param name the consumer's name: its inbox namespace and its queue (letters, digits, {@code . _ -}, up to 100)
 * @param exchange the exchange its messages are published to
 * @param routingKey the routing key it is bound with
 * @param handler the side effect; under Spring it may write through a {@code JdbcTemplate} on the
 *     same {@code DataSource}, which joins the inbox's transaction
 */
public record ConsumerDefinition(String name, String exchange, String routingKey, MessageHandler handler) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    public ConsumerDefinition {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a consumer name is 1 to 100 letters, digits, '.', '_' or '-': " + name);
        }
        if (exchange == null || exchange.isBlank() || routingKey == null || handler == null) {
            throw new IllegalArgumentException("exchange, routingKey and handler are required");
        }
    }

    public static ConsumerDefinition of(String name, String exchange, String routingKey, MessageHandler handler) {
        return new ConsumerDefinition(name, exchange, routingKey, handler);
    }
}
