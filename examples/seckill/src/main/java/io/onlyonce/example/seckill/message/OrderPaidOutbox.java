package io.onlyonce.example.seckill.message;

import io.onlyonce.example.seckill.order.OrderEvents;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * "Order paid" into the transactional outbox, in the payment's own transaction: message
 * {@code {orderNo}_paid} on exchange {@value #EXCHANGE} with routing key {@value #ORDER_PAID}, the
 * notification's {@code X-Request-ID} in its headers. Recorded once per order even if the payment
 * transaction were retried (the message id is the outbox's primary key).
 */
@Component
public class OrderPaidOutbox implements OrderEvents {

    /** The exchange the order service publishes to. */
    public static final String EXCHANGE = "seckill.orders";
    /** The routing key of "order paid". */
    public static final String ORDER_PAID = "order.paid";

    private final TransactionalOutbox outbox;
    private final JsonMapper json;

    public OrderPaidOutbox(TransactionalOutbox outbox, JsonMapper json) {
        this.outbox = outbox;
        this.json = json;
    }

    @Override
    public void orderPaid(OrderPaid event) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (!event.requestId().isEmpty()) {
            headers.put("X-Request-ID", event.requestId());
        }
        OrderPaidMessage payload = new OrderPaidMessage(event.orderNo(), event.businessId(), event.userId(), event.amount(),
                event.tradeNo(), event.paidAt().toEpochMilli());
        outbox.record(new OutboxMessage(event.messageId(), EXCHANGE, ORDER_PAID, json.writeValueAsString(payload), headers));
    }
}
