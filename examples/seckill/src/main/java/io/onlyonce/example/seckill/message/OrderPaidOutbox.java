package io.onlyonce.example.seckill.message;

import io.onlyonce.example.seckill.order.OrderEvents;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * "Order paid" into the transactional outbox, in the payment's own transaction: message
 * {@code {orderNo}_paid} on exchange (Kafka: topic) {@code seckill.messaging.exchange}, by default
 * {@value #EXCHANGE}, with routing key {@value #ORDER_PAID}; in its headers the notification's
 * {@code X-Request-ID} and the order number as {@value #KEY_HEADER} (Kafka's record key: one order's
 * messages stay in order on one partition). Recorded once per order even if the payment
 * transaction were retried (the message id is the outbox's primary key).
 */
@Component
public class OrderPaidOutbox implements OrderEvents {

    /** The exchange (topic) the order service publishes to unless {@value #EXCHANGE_PROPERTY} names another. */
    public static final String EXCHANGE = "seckill.orders";
    /** The property that names the exchange (topic), for a deployment or a test of its own. */
    public static final String EXCHANGE_PROPERTY = "seckill.messaging.exchange";
    /** The header that carries the order number: the record key on Kafka. */
    public static final String KEY_HEADER = "key";
    /** The routing key of "order paid". */
    public static final String ORDER_PAID = "order.paid";

    private final TransactionalOutbox outbox;
    private final JsonMapper json;
    private final String exchange;

    public OrderPaidOutbox(TransactionalOutbox outbox, JsonMapper json,
            @Value("${" + EXCHANGE_PROPERTY + ":" + EXCHANGE + "}") String exchange) {
        this.outbox = outbox;
        this.json = json;
        this.exchange = exchange;
    }

    @Override
    public void orderPaid(OrderPaid event) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (!event.requestId().isEmpty()) {
            headers.put("X-Request-ID", event.requestId());
        }
        headers.put(KEY_HEADER, event.orderNo());
        OrderPaidMessage payload = new OrderPaidMessage(event.orderNo(), event.businessId(), event.userId(), event.amount(),
                event.tradeNo(), event.paidAt().toEpochMilli());
        outbox.record(new OutboxMessage(event.messageId(), exchange, ORDER_PAID, json.writeValueAsString(payload), headers));
    }
}
