-- Moderation (chat/moderation.go, docs/moderation.md).

-- Each app's moderation version: bumped in the transaction of every change to its rules or
-- keyword lists, so that a node's compiled rules know when they are stale.
CREATE TABLE moderation_state (
    app_id  TEXT PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
    version INTEGER NOT NULL DEFAULT 0
);

-- The app's own reasons for flagging; the default reasons are built in (chat.DefaultReasons).
CREATE TABLE moderation_reasons (
    app_id      TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, id)
);

-- Keyword lists: terms is a JSON array of strings.
CREATE TABLE moderation_keyword_lists (
    app_id      TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    category    TEXT NOT NULL,
    is_csv      INTEGER NOT NULL DEFAULT 0,
    terms       TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, id)
);

-- Rules: the current revision's fields; conditions and action are JSON arrays.
CREATE TABLE moderation_rules (
    app_id      TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    enabled     INTEGER NOT NULL,
    conditions  TEXT NOT NULL,
    action      TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, id)
);

-- Every revision of a rule, the current one included; they go with the rule.
CREATE TABLE moderation_rule_revisions (
    app_id      TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    enabled     INTEGER NOT NULL,
    conditions  TEXT NOT NULL,
    action      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, rule_id, revision),
    FOREIGN KEY (app_id, rule_id) REFERENCES moderation_rules (app_id, id) ON DELETE CASCADE
);

-- Which keyword lists each rule's current revision names: a list in use cannot be deleted.
CREATE TABLE moderation_rule_lists (
    app_id  TEXT NOT NULL,
    rule_id TEXT NOT NULL,
    list_id TEXT NOT NULL,
    PRIMARY KEY (app_id, rule_id, list_id),
    FOREIGN KEY (app_id, rule_id) REFERENCES moderation_rules (app_id, id) ON DELETE CASCADE
);
CREATE INDEX moderation_rule_lists_list ON moderation_rule_lists (app_id, list_id);

-- A flagged message's review (one row per message) and its flags (one per user).
CREATE TABLE moderation_flagged (
    app_id      TEXT NOT NULL,
    message_id  INTEGER NOT NULL,
    status      TEXT NOT NULL, -- pending, approved, disapproved
    created_at  INTEGER NOT NULL,
    reviewed_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, message_id),
    FOREIGN KEY (app_id) REFERENCES apps (id) ON DELETE CASCADE
);
CREATE INDEX moderation_flagged_status ON moderation_flagged (app_id, status, message_id);
CREATE TABLE moderation_flags (
    app_id     TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    uid        TEXT NOT NULL,
    reason_id  TEXT NOT NULL,
    remark     TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, message_id, uid),
    FOREIGN KEY (app_id, message_id) REFERENCES moderation_flagged (app_id, message_id) ON DELETE CASCADE
);

-- Messages a blockMessage rule held back: never in messages until approved, so nothing that
-- reads messages (history, conversations, unread counts, sockets) can show them. message is
-- the held message as JSON; message_id is the message it became once approved.
CREATE TABLE moderation_blocked (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id      TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    sender      TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    rule_name   TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    condition   TEXT NOT NULL,
    action      TEXT NOT NULL,
    message     TEXT NOT NULL,
    status      TEXT NOT NULL, -- pending, approved, rejected
    message_id  INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX moderation_blocked_app ON moderation_blocked (app_id, id);
