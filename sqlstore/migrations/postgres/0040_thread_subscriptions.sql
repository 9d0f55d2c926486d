-- Threads (issue 38): a reply's place in its thread and a parent's last reply, kept in the
-- reply's transaction, so that a thread's unread replies are counted without walking them
-- (docs/read-model.md); and who follows each thread (GET /threads, the subscription
-- endpoints, who is notified of a reply: docs/notifications.md).
ALTER TABLE messages ADD COLUMN thread_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN last_reply_id BIGINT NOT NULL DEFAULT 0;
UPDATE messages SET thread_seq = (SELECT count(*) FROM messages r WHERE r.parent_id = messages.parent_id AND r.id <= messages.id)
    WHERE parent_id > 0;
UPDATE messages SET last_reply_id = (SELECT max(r.id) FROM messages r WHERE r.parent_id = messages.id)
    WHERE reply_count > 0;

-- One row per (user, thread) the user follows (subscribed 1) or explicitly stopped following
-- (subscribed 0, so that a reply does not notify it again as a bystander). updated_at is the
-- thread's last reply, or when the user subscribed: the list's cursor. guid is the group of a
-- group thread ('' for a one-to-one one), so the list can skip the groups the user left.
CREATE TABLE thread_subscriptions (
    app_id          TEXT NOT NULL,
    parent_id       BIGINT NOT NULL,
    uid             TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    guid            TEXT NOT NULL DEFAULT '',
    subscribed      INTEGER NOT NULL,
    updated_at      BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (app_id, parent_id, uid)
);
CREATE INDEX thread_subscriptions_user ON thread_subscriptions (app_id, uid, subscribed, updated_at, parent_id);
-- A user's threads in one conversation (GET /users/{uid}/threads, /groups/{guid}/threads).
CREATE INDEX thread_subscriptions_conversation ON thread_subscriptions (app_id, uid, conversation_id, subscribed, updated_at, parent_id);

-- Threads that have replies: their authors and repliers follow them, as they would have
-- had subscriptions been kept when they were written.
INSERT INTO thread_subscriptions (app_id, parent_id, uid, conversation_id, guid, subscribed, updated_at, created_at)
SELECT p.app_id, p.id, u.uid, p.conversation_id, CASE WHEN p.receiver_type = 'group' THEN p.receiver ELSE '' END, 1,
       (SELECT l.sent_at FROM messages l WHERE l.id = p.last_reply_id), p.sent_at
FROM messages p
JOIN (SELECT parent_id AS pid, sender AS uid FROM messages WHERE parent_id > 0
      UNION SELECT id AS pid, sender AS uid FROM messages WHERE reply_count > 0 AND parent_id = 0) u ON u.pid = p.id
WHERE p.reply_count > 0 AND p.parent_id = 0 AND u.uid <> 'app_system';
