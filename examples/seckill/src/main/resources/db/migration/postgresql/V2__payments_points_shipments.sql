-- Every distinct payment (trade_no) is recorded once: the first one for an unpaid order pays it,
-- each further one for a paid or cancelled order becomes a refund, exactly once.
-- notification_id is now trade_no + "_pay_callback": a repeated notice of one payment finds it.
-- trade numbers are compared byte for byte: "T-1" and "t-1" are two payments
ALTER TABLE payment_notifications ALTER COLUMN trade_no TYPE VARCHAR(64) COLLATE "C";
ALTER TABLE refunds ALTER COLUMN trade_no TYPE VARCHAR(64) COLLATE "C";
ALTER TABLE payment_notifications ADD CONSTRAINT uk_payment_notifications_trade_no UNIQUE (trade_no);
CREATE INDEX ix_payment_notifications_order ON payment_notifications (order_no, id);
ALTER TABLE refunds DROP CONSTRAINT uk_refunds_order_no;
ALTER TABLE refunds ADD CONSTRAINT uk_refunds_trade_no UNIQUE (trade_no);
CREATE INDEX ix_refunds_order ON refunds (order_no);

-- The message layer's effects: points credited once per paid order, one shipment per paid order.
ALTER TABLE users ADD COLUMN points NUMERIC(14, 2) NOT NULL DEFAULT 0;

CREATE TABLE shipments (
    order_no    VARCHAR(32) COLLATE "C" NOT NULL PRIMARY KEY,
    shipment_no VARCHAR(32) COLLATE "C" NOT NULL,
    user_id     BIGINT                  NOT NULL,
    created_at  BIGINT                  NOT NULL,
    CONSTRAINT uk_shipments_shipment_no UNIQUE (shipment_no)
);
