-- How many one-to-one conversations each user is in as uid_a and as uid_b (a conversation
-- with oneself on both sides), kept by the same triggers as the total (0025). The
-- conversation page takes the top of each side's activity index (conversations_uid_a,
-- conversations_uid_b), and asked each side for as many rows as the page reaches: a side
-- with fewer walked to the end of its range, through every dead index entry an update of
-- last_message_id left there until vacuum: 1.2 ms and 220 buffers for a hub user's one
-- conversation on its uid_a side after 20,000 messages in it. Asked for no more rows than
-- the side has, a walk stops at its last live entry.
ALTER TABLE user_conversation_counts ADD COLUMN as_a BIGINT NOT NULL DEFAULT 0;
ALTER TABLE user_conversation_counts ADD COLUMN as_b BIGINT NOT NULL DEFAULT 0;
UPDATE user_conversation_counts k SET
    as_a = (SELECT COUNT(*) FROM conversations c WHERE c.app_id = k.app_id AND c.kind = 'user' AND c.uid_a = k.uid),
    as_b = (SELECT COUNT(*) FROM conversations c WHERE c.app_id = k.app_id AND c.kind = 'user' AND c.uid_b = k.uid);

CREATE OR REPLACE FUNCTION conversations_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO user_conversation_counts AS k (app_id, uid, conversations, as_a, as_b)
            SELECT NEW.app_id, u, 1, MAX(CASE WHEN u = NEW.uid_a THEN 1 ELSE 0 END), MAX(CASE WHEN u = NEW.uid_b THEN 1 ELSE 0 END)
            FROM unnest(ARRAY[NEW.uid_a, NEW.uid_b]) AS u GROUP BY u
            ON CONFLICT (app_id, uid) DO UPDATE SET conversations = k.conversations + 1,
                as_a = k.as_a + excluded.as_a, as_b = k.as_b + excluded.as_b;
        RETURN NEW;
    END IF;
    UPDATE user_conversation_counts SET conversations = conversations - 1,
        as_a = as_a - CASE WHEN uid = OLD.uid_a THEN 1 ELSE 0 END,
        as_b = as_b - CASE WHEN uid = OLD.uid_b THEN 1 ELSE 0 END
        WHERE app_id = OLD.app_id AND (uid = OLD.uid_a OR uid = OLD.uid_b);
    RETURN OLD;
END $$;
