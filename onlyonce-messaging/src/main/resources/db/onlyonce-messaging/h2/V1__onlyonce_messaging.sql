-- OnlyOnce message layer schema for H2 2.x.
-- Run by Flyway (location classpath:db/onlyonce-messaging/h2) or by
-- io.onlyonce.messaging.MessagingSchema. Every statement is idempotent, so applying the script again
-- changes nothing.
-- Times are epoch milliseconds (BIGINT) on the database's clock, the one clock that every
-- application instance shares: each statement computes and compares them with the database's
-- current time (EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) as epoch ms, whatever the session time
-- zone), never a caller's. H2 keeps CURRENT_TIMESTAMP for a whole transaction.
-- payload and headers are LOBs: H2's VARCHAR stops at 1,000,000 characters.
-- Unlike the other scripts, this one has no CHECK constraint on the status column: H2 2.4.240
-- fails every insert into a table whose CHECK compares strings once the connection that created the
-- table is closed ("Check constraint invalid ... The database has been closed").

-- The outbox (seed 003's message_log): one row per message, written in the business transaction.
--   id                 the message id (OutboxMessage.id: 1 to 255 visible ASCII characters), stable
--                      across re-sends; recording the same id again is a no-op (the duplicate-key
--                      error of the INSERT is caught: H2 rolls back only the failed statement)
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
    id                 VARCHAR(255) NOT NULL PRIMARY KEY,
    exchange           VARCHAR(255) NOT NULL,
    routing_key        VARCHAR(255) NOT NULL,
    payload            CHARACTER LARGE OBJECT NOT NULL,
    headers            CHARACTER LARGE OBJECT NOT NULL,
    status             VARCHAR(8)   NOT NULL,
    attempts           INTEGER      NOT NULL,
    next_attempt_at_ms BIGINT,
    sending_since_ms   BIGINT,
    sending_owner      VARCHAR(32),
    last_error         VARCHAR(500),
    created_at_ms      BIGINT       NOT NULL,
    sent_at_ms         BIGINT
);
-- The relay's claim: status IN ('PREPARED', 'SENDING') AND next_attempt_at_ms <= now
-- ORDER BY next_attempt_at_ms FETCH FIRST n ROWS ONLY FOR UPDATE SKIP LOCKED.
CREATE INDEX IF NOT EXISTS onlyonce_message_log_due_idx ON onlyonce_message_log (next_attempt_at_ms);
-- The purge of sent rows: sent_at_ms <= now - retention.
CREATE INDEX IF NOT EXISTS onlyonce_message_log_sent_idx ON onlyonce_message_log (sent_at_ms);

-- The inbox of the idempotent consumers: one row per message a consumer has processed, inserted
-- first in the transaction of the consumer's side effect (a duplicate-key error is caught), so the
-- effect and the row commit together or not at all, and a redelivery finds the row and is dropped.
--   consumer        the consumer's name (1 to 255 visible ASCII characters)
--   message_id      the message id (1 to 255 visible ASCII characters)
--   processed_at_ms when it was processed (the purge deletes rows older than the broker can redeliver)
CREATE TABLE IF NOT EXISTS onlyonce_inbox (
    consumer        VARCHAR(255) NOT NULL,
    message_id      VARCHAR(255) NOT NULL,
    processed_at_ms BIGINT       NOT NULL,
    PRIMARY KEY (consumer, message_id)
);
CREATE INDEX IF NOT EXISTS onlyonce_inbox_processed_idx ON onlyonce_inbox (processed_at_ms);
