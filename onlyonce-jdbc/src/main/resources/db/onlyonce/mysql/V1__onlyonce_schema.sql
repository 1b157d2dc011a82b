-- OnlyOnce schema for MySQL 8 and MariaDB 10.3 or later (InnoDB).
-- Run by Flyway (location classpath:db/onlyonce/mysql) or by io.onlyonce.jdbc.JdbcSchema.
-- Every statement is idempotent, so applying the script again changes nothing.
-- Times are epoch milliseconds (BIGINT) on the database server's clock, the one clock that every
-- application instance shares: each statement computes and compares them with the server's current
-- time (UTC_TIMESTAMP(3) as epoch ms, whatever the session time zone), never a caller's.
-- Owner, id and fingerprint columns are ASCII with a binary collation: they are case-sensitive
-- base64url and hex values, which a case-insensitive default collation would confuse.

-- One row per idempotency key. status: P = in progress (expires_at_ms is the end of the lease),
-- C = completed (expires_at_ms is the end of the retention; the response columns are set, or all
-- three are NULL when the work ran but its response could not be kept).
-- response_headers holds one "name: value" line per header, in order.
--
-- The primary key is key_hash, the SHA-256 of the scope (UTF-8), one 0x00 byte and the key name,
-- that is UNHEX(SHA2(CONCAT(scope, CHAR(0), idem_key), 256)). A (scope, idem_key) key would fit
-- the 3072-byte index limit (2048 + 255 bytes), but it would need a NO PAD binary collation, which
-- MySQL and MariaDB name differently (utf8mb4_0900_bin, utf8mb4_nopad_bin); with utf8mb4_bin, the
-- one both know, the scopes 'alice' and 'alice ' would be one key. The hash is exact, fixed-size
-- (32 bytes, which also keeps the expiry index small); scope and idem_key are kept for reading.
CREATE TABLE IF NOT EXISTS onlyonce_idempotency (
    key_hash         BINARY(32)                                          NOT NULL,
    scope            VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    idem_key         VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,
    status           CHAR(1)      CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,
    fingerprint      VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,
    owner            VARCHAR(22)  CHARACTER SET ascii COLLATE ascii_bin     NOT NULL,
    expires_at_ms    BIGINT                                              NOT NULL,
    response_status  SMALLINT,
    response_headers LONGTEXT     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    response_body    LONGBLOB,
    created_at_ms    BIGINT                                              NOT NULL,
    PRIMARY KEY (key_hash),
    INDEX expires_idx (expires_at_ms),
    CHECK (status IN ('P', 'C'))
) ENGINE = InnoDB;

-- One row per issued one-time token; expires_at_ms is the server's time at save plus the token's ttl.
CREATE TABLE IF NOT EXISTS onlyonce_token (
    id            VARCHAR(22) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    status        VARCHAR(8)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    expires_at_ms BIGINT                                            NOT NULL,
    PRIMARY KEY (id),
    INDEX expires_idx (expires_at_ms),
    CHECK (status IN ('CREATED', 'CONSUMED'))
) ENGINE = InnoDB;

-- One row per request fingerprint (64 lower-case hex digits) whose window is or was open:
-- window_end_ms is the end of the window opened by its first hit, hit_count the hits counted in it.
CREATE TABLE IF NOT EXISTS onlyonce_window (
    fingerprint   VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    window_end_ms BIGINT                                            NOT NULL,
    hit_count     BIGINT                                            NOT NULL,
    PRIMARY KEY (fingerprint),
    INDEX window_end_idx (window_end_ms)
) ENGINE = InnoDB;
