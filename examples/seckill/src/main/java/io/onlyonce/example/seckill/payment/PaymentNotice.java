package io.onlyonce.example.seckill.payment;

import java.math.BigDecimal;

/**
 * The payment platform's notification body.
 *
 * @param outTradeNo our order number
 * @param amount the amount paid
 * @param tradeNo the platform's transaction number
 */
public record PaymentNotice(String outTradeNo, BigDecimal amount, String tradeNo) {
}
