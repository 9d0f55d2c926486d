-- Pins and saves (chat/pins.go). A message has at most one pin, conversation-wide: when and
-- by whom (a uid, or app_system for the app); 0 while not pinned.
ALTER TABLE messages ADD COLUMN pinned_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN pinned_by TEXT NOT NULL DEFAULT '';
-- A conversation's pins: the pinned list and the per-conversation cap count them.
CREATE INDEX messages_pinned ON messages (app_id, conversation_id, id) WHERE pinned_at > 0;

-- Each user's saved messages, private to the user.
CREATE TABLE saved_messages (
    app_id     TEXT NOT NULL,
    uid        TEXT NOT NULL,
    message_id BIGINT NOT NULL,
    saved_at   BIGINT NOT NULL,
    PRIMARY KEY (app_id, uid, message_id),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
-- A message's saves, which go with it when it is purged.
CREATE INDEX saved_messages_message ON saved_messages (app_id, message_id);

-- A user's own pin of a conversation lives on its marker; 0 while not pinned.
ALTER TABLE conversation_markers ADD COLUMN pinned_at BIGINT NOT NULL DEFAULT 0;
CREATE INDEX conversation_markers_pinned ON conversation_markers (app_id, uid) WHERE pinned_at > 0;

-- The app-wide pinned conversations, in display order: a user's conversation with target
-- (kind user) or a group's (kind group), pinned for everyone.
CREATE TABLE system_pinned_conversations (
    app_id    TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    kind      TEXT NOT NULL, -- user or group
    target    TEXT NOT NULL, -- uid or guid
    position  BIGINT NOT NULL,
    pinned_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, kind, target)
);
