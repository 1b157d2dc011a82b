-- OnlyOnce message layer schema for PostgreSQL.
-- Run by Flyway (location classpath:db/onlyonce-messaging/postgresql) or by
-- io.onlyonce.messaging.MessagingSchema. Every statement is idempotent, so applying the script again
-- changes nothing.
-- Times are epoch milliseconds (BIGINT) on the database server's clock, the one clock that every
-- application instance shares: each statement computes and compares them with the server's current
-- time (statement_timestamp() as epoch ms, whatever the session time zone), never a caller's.
-- Id, owner and consumer columns use the "C" collation: exact byte comparison.

-- The outbox (seed 003's message_log): one row per message, written in the business transaction.
--   id                 the message id (OutboxMessage.id: 1 to 255 visible ASCII characters), stable
--                      across re-sends; recording the same id again is a no-op
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
--                      so that the due index holds only live rows
--   sending_since_ms   when the row was last claimed
--   sending_owner      the fencing token of the last claim: only that claim may mark the row
--   last_error         the last publish failure, one short line (no stack trace), kept once sent
--   created_at_ms      when it was recorded
--   sent_at_ms         when the broker's confirm was recorded (SUCCESS rows only)
CREATE TABLE IF NOT EXISTS onlyonce_message_log (
    id                 VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
    exchange           VARCHAR(255)             NOT NULL,
    routing_key        VARCHAR(255)             NOT NULL,
    payload            TEXT                     NOT NULL,
    headers            TEXT                     NOT NULL,
    status             VARCHAR(8)               NOT NULL
                       CHECK (status IN ('PREPARED', 'SENDING', 'SUCCESS', 'FAILED')),
    attempts           INTEGER                  NOT NULL,
    next_attempt_at_ms BIGINT,
    sending_since_ms   BIGINT,
    sending_owner      VARCHAR(32)  COLLATE "C",
    last_error         VARCHAR(500),
    created_at_ms      BIGINT                   NOT NULL,
    sent_at_ms         BIGINT
);
-- The relay's claim: status IN ('PREPARED', 'SENDING') AND next_attempt_at_ms <= now
-- ORDER BY next_attempt_at_ms LIMIT n FOR UPDATE SKIP LOCKED.
CREATE INDEX IF NOT EXISTS onlyonce_message_log_due_idx ON onlyonce_message_log (next_attempt_at_ms)
    WHERE next_attempt_at_ms IS NOT NULL;
-- The purge of sent rows: sent_at_ms <= now - retention.
CREATE INDEX IF NOT EXISTS onlyonce_message_log_sent_idx ON onlyonce_message_log (sent_at_ms)
    WHERE sent_at_ms IS NOT NULL;

-- The inbox of the idempotent consumers: one row per message a consumer has processed, inserted
-- first in the transaction of the consumer's side effect (INSERT ... ON CONFLICT DO NOTHING), so the
-- effect and the row commit together or not at all, and a redelivery finds the row and is dropped.
--   consumer        the consumer's name (1 to 255 visible ASCII characters)
--   message_id      the message id (1 to 255 visible ASCII characters)
--   processed_at_ms when it was processed (the purge deletes rows older than the broker can redeliver)
CREATE TABLE IF NOT EXISTS onlyonce_inbox (
    consumer        VARCHAR(255) COLLATE "C" NOT NULL,
    message_id      VARCHAR(255) COLLATE "C" NOT NULL,
    processed_at_ms BIGINT                   NOT NULL,
    PRIMARY KEY (consumer, message_id)
);
CREATE INDEX IF NOT EXISTS onlyonce_inbox_processed_idx ON onlyonce_inbox (processed_at_ms);
