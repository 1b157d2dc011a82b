-- The flash-sale fast path: one row per reservation a consumer (or the status query, for a
-- reservation Redis lost) decided, keyed by the reservation id, so a redelivered batch changes
-- nothing. ORDERED names the order written in the same transaction; FAILED says why.
CREATE TABLE seckill_reservations (
    reservation_id VARCHAR(64) NOT NULL PRIMARY KEY,
    activity_id    BIGINT      NOT NULL,
    user_id        BIGINT      NOT NULL,
    product_id     BIGINT      NOT NULL,
    quantity       INT         NOT NULL,
    status         VARCHAR(16) NOT NULL CHECK (status IN ('ORDERED', 'FAILED')),
    order_no       VARCHAR(32),
    reason         VARCHAR(40),
    decided_at     BIGINT      NOT NULL
);
CREATE INDEX ix_seckill_reservations_activity ON seckill_reservations (activity_id, status);
CREATE INDEX ix_orders_activity_status ON orders (activity_id, status);
