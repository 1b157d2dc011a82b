package io.onlyonce.example.orders;

/**
 * A request for a refund.
 *
 * @param refundNo the client's business key: one refund per number
 * @param orderId the order to refund
 * @param amountCents the amount
 * @param workMillis how long the work holds its transaction (a slow payment provider)
 * @param failAfter for a checkout: whether it fails after the refund was made
 */
public record RefundRequest(String refundNo, long orderId, long amountCents, long workMillis, boolean failAfter) {
}
