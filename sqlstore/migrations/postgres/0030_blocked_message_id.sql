-- Held messages are reviewed by their message id, as the hosted API does (issue 36,
-- PATCH /moderation/blocked-messages/{messageId}), and the blocked list pages by it. Entries
-- held before message ids were reserved (and ones rejected then, which lost theirs) take one
-- now from the messages' sequence, as InsertBlocked does, so that every entry has its own.
UPDATE moderation_blocked SET message_id = nextval(pg_get_serial_sequence('messages', 'id')) WHERE message_id = 0;
CREATE INDEX moderation_blocked_message ON moderation_blocked (app_id, message_id);
