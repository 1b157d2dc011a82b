package io.onlyonce.example.seckill.order;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
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
 * @param payments every distinct payment notified for it: the one that paid it (PAID) and any further
 *     one (REFUND), in the order they arrived
 * @param shipmentNo its shipment, once the shipment consumer handled "order paid"; else null
 */
public record OrderView(String orderNo, String businessId, OrderStatus status, long productId, @Nullable Long activityId,
        int quantity, BigDecimal amount, Instant createdAt, @Nullable Instant paidAt, @Nullable Instant cancelledAt,
        List<PaymentView> payments, @Nullable String shipmentNo) {

    /**
     * One payment of an order.
     *
     * @param tradeNo the payment platform's id of the payment
     * @param amount what was paid
     * @param outcome PAID (it paid the order) or REFUND (to be refunded)
     */
    public record PaymentView(String tradeNo, BigDecimal amount, String outcome) {
    }

    /** The order alone, as just placed or cancelled: no payments, no shipment. */
    public static OrderView of(Order order) {
        return of(order, List.of(), null);
    }

    public static OrderView of(Order order, List<PaymentView> payments, @Nullable String shipmentNo) {
        return new OrderView(order.orderNo(), order.businessId(), order.status(), order.productId(), order.activityId(),
                order.quantity(), order.amount(), order.createdAt(), order.paidAt(), order.cancelledAt(),
                List.copyOf(payments), shipmentNo);
    }
}
