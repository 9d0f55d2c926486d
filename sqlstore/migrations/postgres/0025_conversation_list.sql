-- A user's conversation list without walking it (issue 29, sqlstore/conversations.go).
--
-- A user's groups with the guid in the index: the group half of the list and its count
-- start from the user's memberships (app_id, uid) and join each group's conversation, from
-- the index alone.
CREATE INDEX group_members_user_guid ON group_members (app_id, uid, guid);
DROP INDEX group_members_user;

-- How many one-to-one conversations each user is a party of (a conversation with oneself
-- once), kept by the triggers below whoever writes the rows (sends, imports), so that the
-- list's total is one row read rather than a count of the user's conversations.
CREATE TABLE user_conversation_counts (
    app_id        TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    uid           TEXT NOT NULL,
    conversations BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, uid)
);
INSERT INTO user_conversation_counts (app_id, uid, conversations)
    SELECT app_id, uid, COUNT(*) FROM (
        SELECT app_id, uid_a AS uid FROM conversations WHERE kind = 'user'
        UNION ALL SELECT app_id, uid_b FROM conversations WHERE kind = 'user' AND uid_b <> uid_a) AS p
    GROUP BY app_id, uid;

-- AFTER INSERT row triggers fire for the rows an INSERT … ON CONFLICT DO UPDATE inserted,
-- not for those it updated: only a new conversation counts.
CREATE FUNCTION conversations_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO user_conversation_counts AS k (app_id, uid, conversations)
            SELECT NEW.app_id, u, 1 FROM unnest(ARRAY[NEW.uid_a, NEW.uid_b]) AS u GROUP BY u
            ON CONFLICT (app_id, uid) DO UPDATE SET conversations = k.conversations + 1;
        RETURN NEW;
    END IF;
    UPDATE user_conversation_counts SET conversations = conversations - 1
        WHERE app_id = OLD.app_id AND (uid = OLD.uid_a OR uid = OLD.uid_b);
    RETURN OLD;
END $$;

CREATE TRIGGER conversations_counted AFTER INSERT ON conversations
    FOR EACH ROW WHEN (NEW.kind = 'user') EXECUTE FUNCTION conversations_count();
CREATE TRIGGER conversations_uncounted AFTER DELETE ON conversations
    FOR EACH ROW WHEN (OLD.kind = 'user') EXECUTE FUNCTION conversations_count();
