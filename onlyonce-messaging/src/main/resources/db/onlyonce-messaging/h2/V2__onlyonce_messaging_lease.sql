-- OnlyOnce message layer, version 2, H2: the relay's lease gets a column of its own.
-- Run after V1 by Flyway (same location) or by io.onlyonce.messaging.MessagingSchema; applying it
-- again changes nothing.
--   lease_until_ms  SENDING rows: when the claiming relay's lease ends (a row whose lease passed is
--                   claimed again: the sweep). NULL on rows claimed before this version, whose lease
--                   end is their next_attempt_at_ms.
ALTER TABLE onlyonce_message_log ADD COLUMN IF NOT EXISTS lease_until_ms BIGINT;
