package io.onlyonce.example.seckill.message;

import com.github.f4b6a3.tsid.TsidCreator;
import io.onlyonce.messaging.InboundMessage;
import io.onlyonce.messaging.PermanentMessageFailure;
import io.onlyonce.spring.messaging.ConsumerDefinition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The two consumers of "order paid", each idempotent by its inbox (the OnlyOnce message layer
 * records {@code (consumer, message id)} in the same transaction as the effect below, so a message
 * delivered twice, or re-sent by the relay, takes effect once):
 * <ul>
 *   <li>{@value #POINTS}: the buyer's points grow by the amount paid;</li>
 *   <li>{@value #SHIPMENT}: one shipment per paid order (the order number is also the shipment's
 *     primary key: the data layer's last line).</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class OrderPaidConsumers {

    /** The points consumer's name (its inbox namespace and queue). */
    public static final String POINTS = "seckill.points";
    /** The shipment consumer's name. */
    public static final String SHIPMENT = "seckill.shipment";

    private static final Logger log = LoggerFactory.getLogger(OrderPaidConsumers.class);

    /** The exchange (topic) the consumers are bound to: the one the outbox publishes to. */
    private static final String EXCHANGE = "${" + OrderPaidOutbox.EXCHANGE_PROPERTY + ":" + OrderPaidOutbox.EXCHANGE + "}";

    @Bean
    ConsumerDefinition pointsConsumer(JsonMapper json, @Value(EXCHANGE) String exchange) {
        return ConsumerDefinition.of(POINTS, exchange, OrderPaidOutbox.ORDER_PAID, (message, connection) -> {
            OrderPaidMessage paid = parse(json, message);
            try (PreparedStatement credit = connection.prepareStatement("UPDATE users SET points = points + ? WHERE id = ?")) {
                credit.setBigDecimal(1, paid.amount());
                credit.setLong(2, paid.userId());
                if (credit.executeUpdate() != 1) {
                    throw new PermanentMessageFailure("no user " + paid.userId() + " to credit");
                }
            }
            log.info("points: +{} for user {} (order {})", paid.amount(), paid.userId(), paid.orderNo());
        });
    }

    @Bean
    ConsumerDefinition shipmentConsumer(JsonMapper json, Clock clock, @Value(EXCHANGE) String exchange) {
        return ConsumerDefinition.of(SHIPMENT, exchange, OrderPaidOutbox.ORDER_PAID, (message, connection) -> {
            OrderPaidMessage paid = parse(json, message);
            String shipmentNo = "S" + TsidCreator.getTsid();
            ship(connection, paid, shipmentNo, clock.millis());
            log.info("shipment {} for order {}", shipmentNo, paid.orderNo());
        });
    }

    private static void ship(Connection connection, OrderPaidMessage paid, String shipmentNo, long now) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO shipments (order_no, shipment_no, user_id, created_at) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, paid.orderNo());
            insert.setString(2, shipmentNo);
            insert.setLong(3, paid.userId());
            insert.setLong(4, now);
            insert.executeUpdate();
        }
    }

    private static OrderPaidMessage parse(JsonMapper json, InboundMessage message) {
        try {
            OrderPaidMessage paid = json.readValue(message.payload(), OrderPaidMessage.class);
            if (paid == null || paid.orderNo() == null || paid.amount() == null) {
                throw new PermanentMessageFailure("not an order-paid message");
            }
            return paid;
        } catch (JacksonException e) {
            throw new PermanentMessageFailure("not an order-paid message: unreadable JSON", e);
        }
    }
}
