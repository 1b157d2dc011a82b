package io.onlyonce.example.webflux;

import java.math.BigDecimal;

/** A booked refund. */
public record Refund(long id, long paymentId, BigDecimal amount) {
}
