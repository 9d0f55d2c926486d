-- Real time (docs/realtime.md): the secret socket credentials are signed with, shared by
-- every node of a deployment, and which nodes hold a connection of which user.
CREATE TABLE server_secrets (
    name   TEXT PRIMARY KEY,
    secret BLOB NOT NULL
);
-- A node's hold on a user's presence, renewed while the node holds a socket of the user; a
-- hold that expired belongs to a node that died.
CREATE TABLE user_presence (
    app_id     TEXT NOT NULL,
    uid        TEXT NOT NULL,
    node       TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid, node),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
CREATE INDEX user_presence_expiry ON user_presence (expires_at);
-- Events too large for a PostgreSQL notification travel by reference (sqlstore/postgres_bus.go);
-- unused on SQLite, kept for one schema.
CREATE TABLE realtime_payloads (
    id         INTEGER PRIMARY KEY,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
