package io.onlyonce.example.webflux;

import java.math.BigDecimal;

/** A payment of {@code amount} for {@code orderId}. */
public record PaymentRequest(String orderId, BigDecimal amount) {
}
