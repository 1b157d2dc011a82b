-- Every distinct payment (trade_no) is recorded once: the first one for an unpaid order pays it,
-- each further one for a paid or cancelled order becomes a refund, exactly once.
-- notification_id is now trade_no + "_pay_callback": a repeated notice of one payment finds it.
-- trade numbers are compared byte for byte: "T-1" and "t-1" are two payments
ALTER TABLE payment_notifications MODIFY trade_no VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;
ALTER TABLE refunds MODIFY trade_no VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;
ALTER TABLE payment_notifications ADD UNIQUE KEY uk_payment_notifications_trade_no (trade_no);
ALTER TABLE payment_notifications ADD INDEX ix_payment_notifications_order (order_no, id);
ALTER TABLE refunds DROP INDEX uk_refunds_order_no;
ALTER TABLE refunds ADD UNIQUE KEY uk_refunds_trade_no (trade_no);
ALTER TABLE refunds ADD INDEX ix_refunds_order (order_no);

-- The message layer's effects: points credited once per paid order, one shipment per paid order.
ALTER TABLE users ADD COLUMN points NUMERIC(14, 2) NOT NULL DEFAULT 0;

CREATE TABLE shipments (
    order_no    VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    shipment_no VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    user_id     BIGINT                                            NOT NULL,
    created_at  BIGINT                                            NOT NULL,
    PRIMARY KEY (order_no),
    UNIQUE KEY uk_shipments_shipment_no (shipment_no)
) ENGINE = InnoDB;
