-- natter schema, SQLite dialect. Every row carries its app_id; times are UNIX seconds;
-- 0 means "not set" for optional times; JSON is kept as text so key order survives.
CREATE TABLE apps (
    id         TEXT PRIMARY KEY,
    region     TEXT NOT NULL,
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
    hash       TEXT PRIMARY KEY, -- hex SHA-256 of the key; the key itself is never stored
    app_id     TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    prefix     TEXT NOT NULL,
    suffix     TEXT NOT NULL,
    name       TEXT NOT NULL,
    scope      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX api_keys_app ON api_keys (app_id, created_at);

CREATE TABLE users (
    app_id         TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    uid            TEXT NOT NULL,
    name           TEXT NOT NULL,
    avatar         TEXT NOT NULL DEFAULT '',
    link           TEXT NOT NULL DEFAULT '',
    role           TEXT NOT NULL DEFAULT 'default',
    status         TEXT NOT NULL DEFAULT 'offline',
    status_message TEXT NOT NULL DEFAULT '',
    metadata       TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL DEFAULT 0,
    last_active_at INTEGER NOT NULL DEFAULT 0,
    deactivated_at INTEGER NOT NULL DEFAULT 0,
    deleted_at     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, uid)
);
CREATE INDEX users_name ON users (app_id, lower(name), uid);

CREATE TABLE user_tags (
    app_id TEXT NOT NULL,
    uid    TEXT NOT NULL,
    tag    TEXT NOT NULL,
    pos    INTEGER NOT NULL, -- keeps the order the tags were given in
    PRIMARY KEY (app_id, uid, tag),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
CREATE INDEX user_tags_tag ON user_tags (app_id, tag);

CREATE TABLE messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL,
    sender          TEXT NOT NULL,
    receiver_type   TEXT NOT NULL,
    receiver        TEXT NOT NULL,
    category        TEXT NOT NULL,
    type            TEXT NOT NULL,
    data            TEXT NOT NULL,
    tags            TEXT,
    muid            TEXT NOT NULL DEFAULT '',
    target_id       INTEGER NOT NULL DEFAULT 0, -- action messages: the message acted on
    sent_at         INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    deleted_at      INTEGER NOT NULL DEFAULT 0,
    deleted_by      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX messages_conversation ON messages (app_id, conversation_id, id);
CREATE INDEX messages_sender ON messages (app_id, sender);
CREATE INDEX messages_receiver ON messages (app_id, receiver_type, receiver);

-- No AUTOINCREMENT: ids only need to grow, and the sqlite_sequence row it updates would be
-- one more page written per reaction.
CREATE TABLE reactions (
    id         INTEGER PRIMARY KEY,
    app_id     TEXT NOT NULL,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    uid        TEXT NOT NULL,
    reaction   TEXT NOT NULL,
    reacted_at INTEGER NOT NULL,
    UNIQUE (message_id, uid, reaction)
);
-- The unique index serves every per-message read; a user's reactions are looked up only when
-- a user is purged, which may scan. Each index is a page written per reaction.

-- One row per distinct reaction on a message, kept in the same transaction as the rows.
-- Keyed by first_id (the row that made the reaction appear; ids grow with time), so a
-- message's summary reads out in first-appearance order without a sort; the order stays put
-- while count > 0. The unique index is the database's guarantee of one row per reaction; it
-- is written only when a reaction first appears, not when a count changes.
CREATE TABLE reaction_counts (
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    first_id   INTEGER NOT NULL,
    reaction   TEXT NOT NULL,
    count      INTEGER NOT NULL,
    first_at   INTEGER NOT NULL,
    PRIMARY KEY (message_id, first_id),
    UNIQUE (message_id, reaction)
) WITHOUT ROWID;
