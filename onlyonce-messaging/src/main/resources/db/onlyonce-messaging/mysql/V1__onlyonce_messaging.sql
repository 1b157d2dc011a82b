-- OnlyOnce message layer schema for MySQL 8.0.1 or later and MariaDB 10.6 or later (InnoDB): the
-- relay's claim needs FOR UPDATE SKIP LOCKED.
-- Run by Flyway (location classpath:db/onlyonce-messaging/mysql) or by
-- io.onlyonce.messaging.MessagingSchema. Every statement is idempotent, so applying the script again
-- changes nothing.
-- Times are epoch milliseconds (BIGINT) on the database server's clock, the one clock that every
-- application instance shares: each statement computes and compares them with the server's current
-- time (UTC_TIMESTAMP(3) as epoch ms, whatever the session time zone), never a caller's.
-- Id, owner and consumer columns are ASCII with a binary collation: case-sensitive, exact.

-- The outbox (seed 003's message_log): one row per message, written in the business transaction.
--   id                 the message id (OutboxMessage.id: 1 to 255 visible ASCII characters), stable
--                      across re-sends; recording the same id again is a no-op (INSERT IGNORE)
--   exchange           where it is published (AMQP: at most 255 bytes)
--   routing_key        its routing key (AMQP: at most 255 bytes)
--   payload            the body, JSON text
--   headers            the message's headers as one JSON object of strings, in order
--                      (X-Request-ID travels here)
--   status             PREPARED (waiting for the relay), SENDING (claimed by a relay under a lease),
--                      SUCCESS (the broker confirmed it), FAILED (gave up after max attempts; an
--                      operator resubmits it)
--   attempts           publish attempts so far (each claim counts one; resubmit resets it to 0)
--   next_attempt_at_ms when the relay may claim the row: PREPARED, the time it is due (now, or the
--                      end of a backoff); SENDING, the end of the claiming relay's lease (a row
--                      whose lease passed is claimed again: the sweep); NULL once SUCCESS or FAILED,
--                      so that the due index range never reaches finished rows
--   sending_since_ms   when the row was last claimed
--   sending_owner      the fencing token of the last claim: only that claim may mark the row
--   last_error         the last publish failure, one short line (no stack trace), kept once sent
--   created_at_ms      when it was recorded
--   sent_at_ms         when the broker's confirm was recorded (SUCCESS rows only)
CREATE TABLE IF NOT EXISTS onlyonce_message_log (
    id                 VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin       NOT NULL,
    exchange           VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin   NOT NULL,
    routing_key        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin   NOT NULL,
    payload            LONGTEXT     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin   NOT NULL,
    headers            MEDIUMTEXT   CHARACTER SET utf8mb4 COLLATE utf8mb4_bin   NOT NULL,
    status             VARCHAR(8)   CHARACTER SET ascii COLLATE ascii_bin       NOT NULL,
    attempts           INT                                                     NOT NULL,
    next_attempt_at_ms BIGINT,
    sending_since_ms   BIGINT,
    sending_owner      VARCHAR(32)  CHARACTER SET ascii COLLATE ascii_bin,
    last_error         VARCHAR(500) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    created_at_ms      BIGINT                                                  NOT NULL,
    sent_at_ms         BIGINT,
    PRIMARY KEY (id),
    -- the relay's claim: status IN ('PREPARED', 'SENDING') AND next_attempt_at_ms <= now
    -- ORDER BY next_attempt_at_ms LIMIT n FOR UPDATE SKIP LOCKED
    INDEX due_idx (next_attempt_at_ms),
    -- the purge of sent rows: sent_at_ms <= now - retention
    INDEX sent_idx (sent_at_ms),
    CHECK (status IN ('PREPARED', 'SENDING', 'SUCCESS', 'FAILED'))
) ENGINE = InnoDB;

-- The inbox of the idempotent consumers: one row per message a consumer has processed, inserted
-- first in the transaction of the consumer's side effect (INSERT IGNORE), so the effect and the row
-- commit together or not at all, and a redelivery finds the row and is dropped.
--   consumer        the consumer's name (1 to 255 visible ASCII characters)
--   message_id      the message id (1 to 255 visible ASCII characters)
--   processed_at_ms when it was processed (the purge deletes rows older than the broker can redeliver)
CREATE TABLE IF NOT EXISTS onlyonce_inbox (
    consumer        VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    message_id      VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    processed_at_ms BIGINT                                             NOT NULL,
    PRIMARY KEY (consumer, message_id),
    INDEX processed_idx (processed_at_ms)
) ENGINE = InnoDB;
