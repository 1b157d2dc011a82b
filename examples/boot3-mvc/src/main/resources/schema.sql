CREATE TABLE IF NOT EXISTS orders (
    order_no VARCHAR(36) PRIMARY KEY,
    buyer    VARCHAR(64) NOT NULL,
    item     VARCHAR(200) NOT NULL,
    quantity INT NOT NULL
);
