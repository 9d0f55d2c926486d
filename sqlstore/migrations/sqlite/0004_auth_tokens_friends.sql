-- Auth tokens and friends. Both belong to a user and go with it: a user purged for good
-- takes its tokens and both directions of its friendships along (the cascades; natter writes
-- neither table on a hot path, so the foreign keys cost nothing that matters).

-- A user's login credentials for client apps. Only the SHA-256 hash of a token is kept, with
-- the first and last four characters of its secret part for lists; id orders a user's
-- tokens by creation.
CREATE TABLE auth_tokens (
    id         INTEGER PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE, -- hex SHA-256 of the token; the token itself is never stored
    app_id     TEXT NOT NULL,
    uid        TEXT NOT NULL,
    prefix     TEXT NOT NULL,
    suffix     TEXT NOT NULL,
    platform   TEXT NOT NULL DEFAULT '',
    user_agent TEXT NOT NULL DEFAULT '',
    app_info   TEXT,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
CREATE INDEX auth_tokens_user ON auth_tokens (app_id, uid, id);

-- One row per direction of each friendship: (alice, bob) and (bob, alice).
CREATE TABLE friends (
    app_id     TEXT NOT NULL,
    uid        TEXT NOT NULL,
    friend_uid TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid, friend_uid),
    FOREIGN KEY (app_id, uid) REFERENCES users (app_id, uid) ON DELETE CASCADE,
    FOREIGN KEY (app_id, friend_uid) REFERENCES users (app_id, uid) ON DELETE CASCADE
);
CREATE INDEX friends_friend ON friends (app_id, friend_uid);
