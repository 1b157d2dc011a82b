-- OnlyOnce message layer, version 2, PostgreSQL: the relay's lease gets a column of its own.
-- Run after V1 by Flyway (same location) or by io.onlyonce.messaging.MessagingSchema; applying it
-- again changes nothing.
--   lease_until_ms  SENDING rows: when the claiming relay's lease ends (a row whose lease passed is
--                   claimed again: the sweep). NULL on rows claimed before this version, whose lease
--                   end is their next_attempt_at_ms.
-- With the lease out of next_attempt_at_ms, a claim changes no indexed column, so PostgreSQL writes
-- it as a heap-only (HOT) update: no new index entries, a fraction of the write-ahead log. The free
-- space that needs on each page is kept by a fillfactor of 60 (it applies to pages written from now
-- on): a batch claims whole pages of rows at once, and each claimed row's new version stays on its
-- page.
ALTER TABLE onlyonce_message_log ADD COLUMN IF NOT EXISTS lease_until_ms BIGINT;
ALTER TABLE onlyonce_message_log SET (fillfactor = 60);
