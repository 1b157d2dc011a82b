package io.onlyonce.example.seckill.order;

import java.math.BigDecimal;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One row of {@code orders}.
 *
 * @param orderNo the order number (TSID: unique, time-ordered)
 * @param businessId the idempotency id the order was made for (unique)
 * @param userId the buyer
 * @param productId the product
 * @param activityId the flash sale, or null for a regular order
 * @param quantity how many
 * @param amount what is to be paid
 * @param status the state
 * @param liveKey "{userId}:{activityId}:{productId}" while a flash-sale order is live, else null
 * @param tradeNo the payment platform's transaction, once paid
 * @param createdAt when it was placed
 * @param paidAt when it was paid
 * @param cancelledAt when it was cancelled
 */
public record Order(
        String orderNo,
        String businessId,
        long userId,
        long productId,
        @Nullable Long activityId,
        int quantity,
        BigDecimal amount,
        OrderStatus status,
        @Nullable String liveKey,
        @Nullable String tradeNo,
        Instant createdAt,
        @Nullable Instant paidAt,
        @Nullable Instant cancelledAt) {

    /** The live key of a flash-sale order of {@code userId} for {@code productId} in {@code activityId}. */
    public static String liveKey(long userId, long activityId, long productId) {
        return userId + ":" + activityId + ":" + productId;
    }

    Order withOrderNo(String number) {
        return new Order(number, businessId, userId, productId, activityId, quantity, amount, status, liveKey,
                tradeNo, createdAt, paidAt, cancelledAt);
    }
}
