-- The read model (docs/read-model.md): each message's place among its conversation's
-- counted messages, threads, edits; one row per conversation; one per (user, conversation)
-- the user has read, reset or tagged.
ALTER TABLE messages ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN parent_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN reply_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN edited_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN edited_by TEXT NOT NULL DEFAULT '';
-- One-to-one messages only: when the receiver's markers first passed them.
ALTER TABLE messages ADD COLUMN delivered_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN read_at BIGINT NOT NULL DEFAULT 0;

-- A user's own messages in a conversation after its read marker (unread counts), and the
-- user's messages for purges.
DROP INDEX messages_sender;
CREATE INDEX messages_sender ON messages (app_id, sender, conversation_id, id);
-- A thread's replies.
CREATE INDEX messages_thread ON messages (parent_id, id) WHERE parent_id > 0;

CREATE TABLE conversations (
    app_id          TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL,
    kind            TEXT NOT NULL, -- user or group
    uid_a           TEXT NOT NULL DEFAULT '', -- one-to-one: the two uids, ascending
    uid_b           TEXT NOT NULL DEFAULT '',
    guid            TEXT NOT NULL DEFAULT '', -- group
    last_message_id BIGINT NOT NULL DEFAULT 0,
    last_seq        BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (app_id, conversation_id)
);
-- A user's one-to-one conversations, most recently active first: a page of a user's
-- conversation list takes the top of each, not all of them (sqlstore/conversations.go).
CREATE INDEX conversations_uid_a ON conversations (app_id, uid_a, last_message_id) WHERE kind = 'user';
CREATE INDEX conversations_uid_b ON conversations (app_id, uid_b, last_message_id) WHERE kind = 'user';
-- The app's conversations by last activity (GET /conversations without onBehalfOf).
CREATE INDEX conversations_activity ON conversations (app_id, last_message_id);

CREATE TABLE conversation_markers (
    app_id          TEXT NOT NULL,
    uid             TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    read_id         BIGINT NOT NULL DEFAULT 0,
    read_seq        BIGINT NOT NULL DEFAULT 0,
    delivered_id    BIGINT NOT NULL DEFAULT 0,
    reset_id        BIGINT NOT NULL DEFAULT 0, -- history at or before it is hidden from uid
    tags            TEXT,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (app_id, uid, conversation_id),
    FOREIGN KEY (app_id, conversation_id) REFERENCES conversations (app_id, conversation_id) ON DELETE CASCADE
);
-- A user's resets, which its conversation list counts out.
CREATE INDEX conversation_markers_reset ON conversation_markers (app_id, uid) WHERE reset_id > 0;

-- What was there before: each conversation's counted messages numbered in id order, and
-- its row.
UPDATE messages SET seq = n.rn FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY app_id, conversation_id ORDER BY id) AS rn
    FROM messages WHERE parent_id = 0 AND category IN ('message', 'custom')) AS n WHERE messages.id = n.id;
INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, guid, last_message_id, last_seq, created_at, updated_at)
SELECT app_id, conversation_id, MIN(receiver_type),
    COALESCE(MIN(CASE WHEN receiver_type = 'user' AND category <> 'action' THEN LEAST(sender, receiver) END), ''),
    COALESCE(MAX(CASE WHEN receiver_type = 'user' AND category <> 'action' THEN GREATEST(sender, receiver) END), ''),
    COALESCE(MAX(CASE WHEN receiver_type = 'group' THEN receiver END), ''),
    MAX(id), MAX(seq), MIN(sent_at), MAX(sent_at)
FROM messages GROUP BY app_id, conversation_id;
