-- A user's conversation list without walking it (issue 29, sqlstore/conversations.go).
--
-- A user's groups with the guid in the index: the group half of the list and its count
-- start from the user's memberships (app_id, uid) and join each group's conversation. The
-- old (app_id, uid) index needed the table for the guid, so that without statistics
-- SQLite preferred the covering primary key on app_id alone: every membership of the app,
-- joined against every conversation of the app.
CREATE INDEX group_members_user_guid ON group_members (app_id, uid, guid);
DROP INDEX group_members_user;

-- How many one-to-one conversations each user is a party of (a conversation with oneself
-- once), kept by the triggers below whoever writes the rows (sends, imports), so that the
-- list's total is one row read rather than a count of the user's conversations.
CREATE TABLE user_conversation_counts (
    app_id        TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    uid           TEXT NOT NULL,
    conversations INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, uid)
);
INSERT INTO user_conversation_counts (app_id, uid, conversations)
    SELECT app_id, uid, COUNT(*) FROM (
        SELECT app_id, uid_a AS uid FROM conversations WHERE kind = 'user'
        UNION ALL SELECT app_id, uid_b FROM conversations WHERE kind = 'user' AND uid_b <> uid_a) AS p
    GROUP BY app_id, uid;

-- An upsert that updates a conversation fires no INSERT trigger: only a new conversation counts.
CREATE TRIGGER conversations_counted AFTER INSERT ON conversations WHEN NEW.kind = 'user'
BEGIN
    INSERT INTO user_conversation_counts (app_id, uid, conversations) VALUES (NEW.app_id, NEW.uid_a, 1)
        ON CONFLICT (app_id, uid) DO UPDATE SET conversations = conversations + 1;
    INSERT INTO user_conversation_counts (app_id, uid, conversations) SELECT NEW.app_id, NEW.uid_b, 1 WHERE NEW.uid_b <> NEW.uid_a
        ON CONFLICT (app_id, uid) DO UPDATE SET conversations = conversations + 1;
END;

CREATE TRIGGER conversations_uncounted AFTER DELETE ON conversations WHEN OLD.kind = 'user'
BEGIN
    UPDATE user_conversation_counts SET conversations = conversations - 1
        WHERE app_id = OLD.app_id AND (uid = OLD.uid_a OR uid = OLD.uid_b);
END;
