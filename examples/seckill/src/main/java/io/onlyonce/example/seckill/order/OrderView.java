package io.onlyonce.example.seckill.order;

import java.math.BigDecimal;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * An order as the API shows it.
 *
 * @param orderNo the order number
 * @param businessId the idempotency id it was made for
 * @param status UNPAID, PAID or CANCELLED
 * @param productId the product
 * @param activityId the flash sale, or null
 * @param quantity how many
 * @param amount what is (or was) to be paid
 * @param createdAt when it was placed
 * @param paidAt when it was paid, or null
 * @param cancelledAt when it was cancelled, or null
 */
public record OrderView(String orderNo, String businessId, OrderStatus status, long productId, @Nullable Long activityId,
        int quantity, BigDecimal amount, Instant createdAt, @Nullable Instant paidAt, @Nullable Instant cancelledAt) {

    public static OrderView of(Order order) {
        return new OrderView(order.orderNo(), order.businessId(), order.status(), order.productId(), order.activityId(),
                order.quantity(), order.amount(), order.createdAt(), order.paidAt(), order.cancelledAt());
    }
}
