package io.onlyonce.example.seckill.order;

/** The order state machine: UNPAID → PAID, or UNPAID → CANCELLED; never back. */
public enum OrderStatus {
    UNPAID,
    PAID,
    CANCELLED
}
