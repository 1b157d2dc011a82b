-- OnlyOnce schema for H2 2.x.
-- Run by Flyway (location classpath:db/onlyonce/h2) or by io.onlyonce.jdbc.JdbcSchema.
-- Every statement is idempotent, so applying the script again changes nothing.
-- Times are epoch milliseconds (BIGINT) on the database's clock, the one clock that every
-- application instance shares: each statement computes and compares them with the database's
-- current time (EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) as epoch ms, whatever the session time
-- zone), never a caller's. H2 keeps CURRENT_TIMESTAMP for a whole transaction.
-- response_headers and response_body are LOBs: H2's VARCHAR and VARBINARY stop at 1,000,000.
-- Unlike the other scripts, this one has no CHECK constraints on the status columns: H2 2.4.240
-- fails every insert into a table whose CHECK compares strings once the connection that created the
-- table is closed ("Check constraint invalid ... The database has been closed").

-- One row per idempotency key. status: P = in progress (expires_at_ms is the end of the lease),
-- C = completed (expires_at_ms is the end of the retention; the response columns are set, or all
-- three are NULL when the work ran but its response could not be kept).
-- response_headers holds one "name: value" line per header, in order.
CREATE TABLE IF NOT EXISTS onlyonce_idempotency (
    scope            VARCHAR(512) NOT NULL,
    idem_key         VARCHAR(255) NOT NULL,
    status           CHAR(1)      NOT NULL,
    fingerprint      VARCHAR(64)  NOT NULL,
    owner            VARCHAR(22)  NOT NULL,
    expires_at_ms    BIGINT       NOT NULL,
    response_status  SMALLINT,
    response_headers CHARACTER LARGE OBJECT,
    response_body    BINARY LARGE OBJECT,
    created_at_ms    BIGINT       NOT NULL,
    PRIMARY KEY (scope, idem_key)
);
CREATE INDEX IF NOT EXISTS onlyonce_idempotency_expires_idx ON onlyonce_idempotency (expires_at_ms);

-- One row per issued one-time token; expires_at_ms is the server's time at save plus the token's ttl.
CREATE TABLE IF NOT EXISTS onlyonce_token (
    id            VARCHAR(22) NOT NULL PRIMARY KEY,
    status        VARCHAR(8)  NOT NULL,
    expires_at_ms BIGINT      NOT NULL
);
CREATE INDEX IF NOT EXISTS onlyonce_token_expires_idx ON onlyonce_token (expires_at_ms);

-- One row per request fingerprint (64 lower-case hex digits) whose window is or was open:
-- window_end_ms is the end of the window opened by its first hit, hit_count the hits counted in it.
CREATE TABLE IF NOT EXISTS onlyonce_window (
    fingerprint   VARCHAR(64) NOT NULL PRIMARY KEY,
    window_end_ms BIGINT      NOT NULL,
    hit_count     BIGINT      NOT NULL
);
CREATE INDEX IF NOT EXISTS onlyonce_window_end_idx ON onlyonce_window (window_end_ms);
