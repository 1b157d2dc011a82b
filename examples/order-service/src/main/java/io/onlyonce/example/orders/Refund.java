package io.onlyonce.example.orders;

/**
 * A refund as stored.
 *
 * @param id the row id
 * @param refundNo the business key the client chose
 * @param orderId the refunded order
 * @param amountCents the amount
 * @param owner who asked for it
 */
public record Refund(long id, String refundNo, long orderId, long amountCents, String owner) {
}
