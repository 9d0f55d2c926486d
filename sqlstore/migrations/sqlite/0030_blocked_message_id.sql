-- Held messages are reviewed by their message id, as the hosted API does (issue 36,
-- PATCH /moderation/blocked-messages/{messageId}), and the blocked list pages by it. Entries
-- held before message ids were reserved (and ones rejected then, which lost theirs) take one
-- now from the messages' sequence, as InsertBlocked does, so that every entry has its own.
INSERT INTO sqlite_sequence (name, seq) SELECT 'messages', COALESCE((SELECT max(id) FROM messages), 0)
    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'messages');
UPDATE sqlite_sequence SET seq = max(seq, COALESCE((SELECT max(id) FROM messages), 0)) WHERE name = 'messages';
CREATE TEMP TABLE blocked_unnumbered AS
    SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM moderation_blocked WHERE message_id = 0;
UPDATE moderation_blocked
    SET message_id = (SELECT seq FROM sqlite_sequence WHERE name = 'messages') + (SELECT n FROM blocked_unnumbered u WHERE u.id = moderation_blocked.id)
    WHERE message_id = 0;
UPDATE sqlite_sequence SET seq = seq + (SELECT count(*) FROM blocked_unnumbered) WHERE name = 'messages';
DROP TABLE blocked_unnumbered;
CREATE INDEX moderation_blocked_message ON moderation_blocked (app_id, message_id);
