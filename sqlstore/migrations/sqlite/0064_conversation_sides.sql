-- How many one-to-one conversations each user is in as uid_a and as uid_b (a conversation
-- with oneself on both sides), kept by the same triggers as the total (0025). The
-- conversation page asks each side's activity index for no more rows than the side has,
-- so that a walk stops at its last live entry; PostgreSQL's indexes keep the dead entries
-- an update of last_message_id leaves until vacuum (migrations/postgres/0064). SQLite
-- keeps none, but the page's statement is the same on both.
ALTER TABLE user_conversation_counts ADD COLUMN as_a INTEGER NOT NULL DEFAULT 0;
ALTER TABLE user_conversation_counts ADD COLUMN as_b INTEGER NOT NULL DEFAULT 0;
UPDATE user_conversation_counts SET
    as_a = (SELECT COUNT(*) FROM conversations c WHERE c.app_id = user_conversation_counts.app_id AND c.kind = 'user' AND c.uid_a = user_conversation_counts.uid),
    as_b = (SELECT COUNT(*) FROM conversations c WHERE c.app_id = user_conversation_counts.app_id AND c.kind = 'user' AND c.uid_b = user_conversation_counts.uid);

DROP TRIGGER conversations_counted;
DROP TRIGGER conversations_uncounted;

CREATE TRIGGER conversations_counted AFTER INSERT ON conversations WHEN NEW.kind = 'user'
BEGIN
    INSERT INTO user_conversation_counts (app_id, uid, conversations, as_a, as_b) VALUES (NEW.app_id, NEW.uid_a, 1, 1, NEW.uid_b = NEW.uid_a)
        ON CONFLICT (app_id, uid) DO UPDATE SET conversations = conversations + 1, as_a = as_a + 1, as_b = as_b + excluded.as_b;
    INSERT INTO user_conversation_counts (app_id, uid, conversations, as_a, as_b) SELECT NEW.app_id, NEW.uid_b, 1, 0, 1 WHERE NEW.uid_b <> NEW.uid_a
        ON CONFLICT (app_id, uid) DO UPDATE SET conversations = conversations + 1, as_b = as_b + 1;
END;

CREATE TRIGGER conversations_uncounted AFTER DELETE ON conversations WHEN OLD.kind = 'user'
BEGIN
    UPDATE user_conversation_counts SET conversations = conversations - 1,
        as_a = as_a - (uid = OLD.uid_a), as_b = as_b - (uid = OLD.uid_b)
        WHERE app_id = OLD.app_id AND (uid = OLD.uid_a OR uid = OLD.uid_b);
END;
