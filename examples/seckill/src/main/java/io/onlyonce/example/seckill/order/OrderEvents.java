package io.onlyonce.example.seckill.order;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * Where "order paid" leaves the order service. Called inside the payment transaction, exactly once
 * per order (after the UNPAID → PAID transition succeeded), so the transactional outbox will slot in
 * here: an implementation that writes the message row in the same transaction, relayed to the
 * broker afterwards (SPEC §6). Today's implementation only logs.
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
