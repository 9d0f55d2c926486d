-- Unread counts kept, not counted (issue 39, docs/read-model.md): each marker keeps how many
-- of its user's own counted messages follow its read marker (unread_own) and how many
-- counted messages of others after it mention the user (unread_mentions), so that a
-- conversation list reads one row per conversation however much the user sent or was
-- mentioned since it last read. The writes keep them in their transactions (sqlstore/
-- unread.go): a send counts on its sender's marker and on those of whom it mentions, a mark
-- recounts what follows its new position, an edit's mentions and a purge count out.
ALTER TABLE conversation_markers ADD COLUMN unread_own INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversation_markers ADD COLUMN unread_mentions INTEGER NOT NULL DEFAULT 0;
-- The highest seq of a counted message purged (deleted for good) from the conversation: a
-- reader whose marker is before it has fewer unread messages than the seqs after its
-- marker, and the list counts those (sqlstore/conversations.go).
ALTER TABLE conversations ADD COLUMN purged_seq INTEGER NOT NULL DEFAULT 0;

-- What was there before: a conversation with fewer counted messages than seqs had some
-- purged, which ones no longer known: as if its last; a marker for every user with a count
-- and none yet (it has read nothing), then every count that is not 0, as the list counted
-- them.
UPDATE conversations SET purged_seq = last_seq WHERE last_seq > (SELECT COUNT(*) FROM messages m
    WHERE m.app_id = conversations.app_id AND m.conversation_id = conversations.conversation_id AND m.seq > 0);
INSERT INTO conversation_markers (app_id, uid, conversation_id, updated_at)
    SELECT DISTINCT m.app_id, m.sender, m.conversation_id, 0 FROM messages m
        JOIN conversations c ON c.app_id = m.app_id AND c.conversation_id = m.conversation_id
        WHERE m.seq > 0 AND NOT EXISTS (SELECT 1 FROM conversation_markers k
            WHERE k.app_id = m.app_id AND k.uid = m.sender AND k.conversation_id = m.conversation_id)
    UNION
    SELECT mm.app_id, mm.uid, mm.conversation_id, 0 FROM message_mentions mm
        JOIN messages mg ON mg.id = mm.message_id
        JOIN conversations c ON c.app_id = mm.app_id AND c.conversation_id = mm.conversation_id
        WHERE mg.seq > 0 AND mg.sender <> mm.uid AND NOT EXISTS (SELECT 1 FROM conversation_markers k
            WHERE k.app_id = mm.app_id AND k.uid = mm.uid AND k.conversation_id = mm.conversation_id);
UPDATE conversation_markers SET
    unread_own = (SELECT COUNT(*) FROM messages o WHERE o.app_id = conversation_markers.app_id
        AND o.sender = conversation_markers.uid AND o.conversation_id = conversation_markers.conversation_id
        AND o.id > conversation_markers.read_id AND o.seq > 0),
    unread_mentions = (SELECT COUNT(*) FROM message_mentions mm JOIN messages mg ON mg.id = mm.message_id
        WHERE mm.app_id = conversation_markers.app_id AND mm.uid = conversation_markers.uid
        AND mm.conversation_id = conversation_markers.conversation_id AND mm.message_id > conversation_markers.read_id
        AND mg.seq > 0 AND mg.sender <> conversation_markers.uid)
    WHERE EXISTS (SELECT 1 FROM messages o WHERE o.app_id = conversation_markers.app_id
            AND o.sender = conversation_markers.uid AND o.conversation_id = conversation_markers.conversation_id
            AND o.id > conversation_markers.read_id AND o.seq > 0)
        OR EXISTS (SELECT 1 FROM message_mentions mm WHERE mm.app_id = conversation_markers.app_id
            AND mm.uid = conversation_markers.uid AND mm.conversation_id = conversation_markers.conversation_id
            AND mm.message_id > conversation_markers.read_id);
