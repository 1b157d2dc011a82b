-- Seckill schema for MySQL 8 and MariaDB 10.6+ (InnoDB). Times are epoch milliseconds (UTC), taken
-- from the service's Clock. Identifiers are ASCII with a binary collation: business ids are
-- case-sensitive ("abcDEF" and "ABCdef" are two ids), which a case-insensitive default would merge.

CREATE TABLE users (
    id         BIGINT      NOT NULL AUTO_INCREMENT,
    username   VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    created_at BIGINT      NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_users_username (username)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Regular catalogue; stock is decremented by regular orders (POST /api/orders).
CREATE TABLE products (
    id      BIGINT         NOT NULL,
    name    VARCHAR(100)   NOT NULL,
    price   DECIMAL(12, 2) NOT NULL,
    stock   INT            NOT NULL,
    version BIGINT         NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    CONSTRAINT ck_products_stock CHECK (stock >= 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE seckill_activities (
    id        BIGINT       NOT NULL,
    name      VARCHAR(100) NOT NULL,
    starts_at BIGINT       NOT NULL,
    ends_at   BIGINT       NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Flash-sale stock per (activity, product): decremented by an optimistic-lock UPDATE, never below 0.
CREATE TABLE seckill_stock (
    activity_id   BIGINT         NOT NULL,
    product_id    BIGINT         NOT NULL,
    price         DECIMAL(12, 2) NOT NULL,
    initial_stock INT            NOT NULL,
    stock         INT            NOT NULL,
    version       BIGINT         NOT NULL DEFAULT 0,
    PRIMARY KEY (activity_id, product_id),
    CONSTRAINT fk_seckill_stock_activity FOREIGN KEY (activity_id) REFERENCES seckill_activities (id),
    CONSTRAINT fk_seckill_stock_product FOREIGN KEY (product_id) REFERENCES products (id),
    CONSTRAINT ck_seckill_stock CHECK (stock >= 0 AND stock <= initial_stock)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- business_id: the client's idempotency id (u{userId}_{epochMillis}_{6 alnum}, at most 41 characters)
-- or, for flash-sale orders, derived from the one-time token. live_key: "{userId}:{activityId}:{productId}"
-- while a flash-sale order is UNPAID or PAID, NULL once cancelled (NULLs never collide), so one user
-- holds at most one live order per activity and product and may buy again after cancelling.
CREATE TABLE orders (
    id           BIGINT         NOT NULL AUTO_INCREMENT,
    order_no     VARCHAR(32)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    business_id  VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    user_id      BIGINT         NOT NULL,
    product_id   BIGINT         NOT NULL,
    activity_id  BIGINT,
    quantity     INT            NOT NULL,
    amount       DECIMAL(12, 2) NOT NULL,
    status       VARCHAR(16)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    live_key     VARCHAR(80)    CHARACTER SET ascii COLLATE ascii_bin,
    trade_no     VARCHAR(64),
    created_at   BIGINT         NOT NULL,
    paid_at      BIGINT,
    cancelled_at BIGINT,
    PRIMARY KEY (id),
    UNIQUE KEY uk_orders_order_no (order_no),
    UNIQUE KEY uk_orders_business_id (business_id),
    UNIQUE KEY uk_orders_live_key (live_key),
    INDEX ix_orders_user (user_id, id),
    INDEX ix_orders_status_created (status, created_at),
    CONSTRAINT ck_orders_status CHECK (status IN ('UNPAID', 'PAID', 'CANCELLED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- One row per payment notification id (outTradeNo + "_pay_callback"): a repeated notice finds it.
CREATE TABLE payment_notifications (
    id              BIGINT         NOT NULL AUTO_INCREMENT,
    notification_id VARCHAR(80)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    order_no        VARCHAR(32)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    trade_no        VARCHAR(64)    NOT NULL,
    amount          DECIMAL(12, 2) NOT NULL,
    outcome         VARCHAR(16)    NOT NULL,
    received_at     BIGINT         NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_payment_notifications_id (notification_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- A payment that arrived for a cancelled order, to be refunded (once per order).
CREATE TABLE refunds (
    id         BIGINT         NOT NULL AUTO_INCREMENT,
    order_no   VARCHAR(32)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    trade_no   VARCHAR(64)    NOT NULL,
    amount     DECIMAL(12, 2) NOT NULL,
    status     VARCHAR(16)    NOT NULL,
    created_at BIGINT         NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_refunds_order_no (order_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
