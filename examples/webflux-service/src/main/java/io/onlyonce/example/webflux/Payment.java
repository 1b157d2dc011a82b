package io.onlyonce.example.webflux;

import java.math.BigDecimal;

/** A booked payment. */
public record Payment(long id, String user, String orderId, BigDecimal amount) {
}
