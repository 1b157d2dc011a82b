package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.StockReturns;
import io.onlyonce.messaging.OutboxMessage;
import io.onlyonce.spring.messaging.TransactionalOutbox;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * "Stock returned" into the transactional outbox, in the cancelling transaction: message
 * {@code {orderNo}_stock_returned} (an order is cancelled once, so its message is one), consumed by
 * {@link FastPathConfiguration#stockReturnConsumer}, which gives the unit back to the Redis stock
 * once however often the message arrives.
 */
public class StockReturnOutbox implements StockReturns {

    /** The routing key of "stock returned" on the order exchange. */
    public static final String STOCK_RETURNED = "order.stock-returned";

    /**
     * The message.
     *
     * @param orderNo the cancelled order
     * @param businessId the business id it was made for ({@code rsv_{reservationId}} on the fast path)
     * @param userId the buyer
     * @param activityId the flash sale
     * @param productId the product
     * @param quantity units given back
     */
    public record StockReturned(String orderNo, String businessId, long userId, long activityId, long productId,
            int quantity) {
    }

    private final TransactionalOutbox outbox;
    private final JsonMapper json;
    private final String exchange;

    public StockReturnOutbox(TransactionalOutbox outbox, JsonMapper json, String exchange) {
        this.outbox = outbox;
        this.json = json;
        this.exchange = exchange;
    }

    @Override
    public void returned(Order order) {
        if (order.activityId() == null) {
            return;
        }
        StockReturned payload = new StockReturned(order.orderNo(), order.businessId(), order.userId(), order.activityId(),
                order.productId(), order.quantity());
        outbox.record(new OutboxMessage(OutboxMessage.id(order.orderNo(), "stock_returned"),
                exchange, STOCK_RETURNED, json.writeValueAsString(payload),
                Map.of(io.onlyonce.example.seckill.message.OrderPaidOutbox.KEY_HEADER, order.orderNo())));
    }
}
