-- Who blocked whom. A block stops one-to-one messages both ways (chat/blocks.go).
CREATE TABLE blocks (
    app_id      TEXT NOT NULL,
    uid         TEXT NOT NULL, -- the blocker
    blocked_uid TEXT NOT NULL,
    blocked_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid, blocked_uid),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE,
    FOREIGN KEY (app_id, blocked_uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
-- Who has blocked a user (hasBlockedMe).
CREATE INDEX blocks_blocked ON blocks (app_id, blocked_uid);
