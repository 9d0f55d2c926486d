-- Notification settings (chat/notifications.go): an app's, each user's own, and the
-- conversations users muted. What the notification rules read per message
-- (chat.NotificationReader) is one row here per app and, per recipient, one row of
-- notification_users and at most one of notification_mutes.

-- An app's settings document (chat.NotificationSettings as JSON, whole); no row: the defaults.
CREATE TABLE notification_settings (
    app_id     TEXT NOT NULL PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
    settings   TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- A user's own: its choices over the app's preferences (chat.NotificationOverrides as JSON,
-- only what it chose; NULL: none), its time zone (an IANA name; '': none, UTC) and its
-- contact details ('': none). No row: none of them.
CREATE TABLE notification_users (
    app_id      TEXT NOT NULL,
    uid         TEXT NOT NULL,
    preferences TEXT,
    timezone    TEXT NOT NULL DEFAULT '',
    email       TEXT NOT NULL DEFAULT '',
    phno        TEXT NOT NULL DEFAULT '',
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (app_id, uid),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);

-- A user's muted conversations: with another user (oneOnOne, its uid) or a group (its guid),
-- until a time in UNIX milliseconds. An ended mute stays until the user's mutes change.
CREATE TABLE notification_mutes (
    app_id            TEXT NOT NULL,
    uid               TEXT NOT NULL,
    conversation_type TEXT NOT NULL,
    conversation_id   TEXT NOT NULL,
    until_ms          BIGINT NOT NULL,
    PRIMARY KEY (app_id, uid, conversation_type, conversation_id),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
-- Who muted a conversation: a group message asks once for all its members, and a purged
-- user or group takes the mutes of it along.
CREATE INDEX notification_mutes_conversation ON notification_mutes (app_id, conversation_type, conversation_id);
