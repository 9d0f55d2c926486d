-- Who each message mentions (<@uid:...> in its text): a user's mentions in a conversation
-- after its read marker are its unreadMentionsCount, one index range.
CREATE TABLE message_mentions (
    app_id          TEXT NOT NULL,
    uid             TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    message_id      BIGINT NOT NULL,
    pos             BIGINT NOT NULL, -- the order the text names them in
    PRIMARY KEY (app_id, uid, conversation_id, message_id)
);
CREATE INDEX message_mentions_message ON message_mentions (message_id);
