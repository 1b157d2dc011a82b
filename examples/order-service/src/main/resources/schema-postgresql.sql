CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY);
INSERT INTO orders (id) SELECT g FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING;
-- a refund must belong to an order; checked at commit (DEFERRABLE INITIALLY DEFERRED), as
-- constraint triggers and deferred keys are, so the commit of a refund for no order fails
CREATE TABLE IF NOT EXISTS refunds (
    id BIGSERIAL PRIMARY KEY,
    refund_no VARCHAR(64) NOT NULL UNIQUE,
    order_id BIGINT NOT NULL REFERENCES orders (id) DEFERRABLE INITIALLY DEFERRED,
    amount_cents BIGINT NOT NULL,
    owner VARCHAR(64) NOT NULL
);
