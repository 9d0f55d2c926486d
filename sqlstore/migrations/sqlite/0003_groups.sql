-- Groups, their members and their bans. A group's members_count is kept in the same
-- transaction as its member rows, under the group's lock, so it never drifts and reading it
-- costs nothing. Unread counts will come from read markers, not per-member rows, so a
-- message to a group writes nothing per member.
CREATE TABLE groups (
    app_id        TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    guid          TEXT NOT NULL,
    name          TEXT NOT NULL,
    type          TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '', -- PBKDF2 (chat/groups.go); the password is never stored
    icon          TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    metadata      TEXT,
    owner         TEXT NOT NULL DEFAULT '',
    members_count INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL DEFAULT 0,
    updated_by    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (app_id, guid)
);
CREATE INDEX groups_name ON groups (app_id, lower(name), guid);

CREATE TABLE group_tags (
    app_id TEXT NOT NULL,
    guid   TEXT NOT NULL,
    tag    TEXT NOT NULL,
    pos    INTEGER NOT NULL,
    PRIMARY KEY (app_id, guid, tag),
    FOREIGN KEY (app_id, guid) REFERENCES groups (app_id, guid) ON DELETE CASCADE
);
CREATE INDEX group_tags_tag ON group_tags (app_id, tag);

CREATE TABLE group_members (
    app_id    TEXT NOT NULL,
    guid      TEXT NOT NULL,
    uid       TEXT NOT NULL,
    scope     TEXT NOT NULL,
    joined_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, guid, uid),
    FOREIGN KEY (app_id, guid) REFERENCES groups (app_id, guid) ON DELETE CASCADE
);
-- A user's groups (hasJoined, the groups-per-user cap), and a group's members in join order;
-- the second covers a page of members, scope included, so that skipping to a later page
-- reads only this index.
CREATE INDEX group_members_user ON group_members (app_id, uid);
CREATE INDEX group_members_joined ON group_members (app_id, guid, joined_at, uid, scope);

CREATE TABLE group_bans (
    app_id    TEXT NOT NULL,
    guid      TEXT NOT NULL,
    uid       TEXT NOT NULL,
    banned_at INTEGER NOT NULL,
    banned_by TEXT NOT NULL,
    PRIMARY KEY (app_id, guid, uid),
    FOREIGN KEY (app_id, guid) REFERENCES groups (app_id, guid) ON DELETE CASCADE
);

-- Group member action messages name the user acted on.
ALTER TABLE messages ADD COLUMN target_uid TEXT NOT NULL DEFAULT '';
