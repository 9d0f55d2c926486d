-- Idempotent retries (chat/idempotency.go, docs/idempotency.md): one row per app and
-- Idempotency-Key, claimed when the first request starts (status 0) and holding its answer
-- once sent; kept 24 hours. fingerprint is the hex SHA-256 of the request's method, path,
-- acting user and body.
CREATE TABLE idempotency_keys (
    app_id      TEXT    NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    key         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    status      INTEGER NOT NULL,
    body        BLOB,
    PRIMARY KEY (app_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (app_id, created_at);
