package io.onlyonce.example.seckill.message;

import java.math.BigDecimal;

/**
 * The body of an "order paid" message (JSON).
 *
 * @param orderNo the order
 * @param businessId the business id it was placed with
 * @param userId the buyer
 * @param amount what was paid
 * @param tradeNo the payment that paid it
 * @param paidAtMs when, epoch milliseconds
 */
public record OrderPaidMessage(String orderNo, String businessId, long userId, BigDecimal amount, String tradeNo,
        long paidAtMs) {
}
