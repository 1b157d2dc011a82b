package io.onlyonce.example.seckill.order;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * Where "order paid" leaves the order service. Called inside the payment transaction, exactly once
 * per order (after the UNPAID → PAID transition succeeded): the implementation,
 * {@link io.onlyonce.example.seckill.message.OrderPaidOutbox}, records the message in the
 * transactional outbox in that same transaction, and the relay publishes it afterwards.
 */
public interface OrderEvents {

    void orderPaid(OrderPaid event);

    /**
     * An order was paid.
     *
     * @param orderNo the order
     * @param businessId the business id it was made for
     * @param userId the buyer
     * @param amount the amount paid
     * @param tradeNo the payment platform's transaction
     * @param paidAt when the payment was recorded
     * @param messageId the stable id of the message that will carry this event ({@code {orderNo}_paid})
     * @param requestId the {@code X-Request-ID} of the notification, for tracing
     */
    record OrderPaid(String orderNo, String businessId, long userId, BigDecimal amount, String tradeNo, Instant paidAt,
            String messageId, String requestId) {
    }
}
