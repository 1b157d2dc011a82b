-- OnlyOnce message layer, version 2, MySQL and MariaDB: the relay's lease gets a column of its own.
-- Run after V1 by Flyway (same location) or by io.onlyonce.messaging.MessagingSchema, which skips
-- the column when it exists (MySQL has no ADD COLUMN IF NOT EXISTS).
--   lease_until_ms  SENDING rows: when the claiming relay's lease ends (a row whose lease passed is
--                   claimed again: the sweep). NULL on rows claimed before this version, whose lease
--                   end is their next_attempt_at_ms.
-- A claim then changes no indexed column: InnoDB updates the row in place and leaves due_idx alone.
ALTER TABLE onlyonce_message_log ADD COLUMN lease_until_ms BIGINT;
