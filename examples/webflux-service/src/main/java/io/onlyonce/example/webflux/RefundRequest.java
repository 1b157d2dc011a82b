package io.onlyonce.example.webflux;

import java.math.BigDecimal;

/** A refund of {@code amount} of payment {@code paymentId}. */
public record RefundRequest(long paymentId, BigDecimal amount) {
}
