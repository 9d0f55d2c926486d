-- Webhooks (docs/webhooks.md): an app's endpoints, their signing secrets, the outbox of events
-- written in the transaction of the change that causes them, and one delivery per event and
-- subscribed webhook. Secrets and Basic-auth credentials are kept encrypted (AES-256-GCM with
-- natter's webhook key); times of the outbox are UNIX milliseconds.
CREATE TABLE webhooks (
    app_id         TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    id             TEXT NOT NULL,
    url            TEXT NOT NULL,
    enabled        INTEGER NOT NULL,
    use_basic_auth INTEGER NOT NULL,
    basic_auth     BLOB, -- encrypted "username:password"
    triggers       TEXT NOT NULL, -- ",message_sent,message_edited,": a LIKE finds one
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (app_id, id)
);

-- Two are active while a rotation runs: the old one until expires_at, the new one without end.
CREATE TABLE webhook_secrets (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id     TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    secret     BLOB NOT NULL, -- encrypted
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL DEFAULT 0, -- 0: does not expire
    FOREIGN KEY (app_id, webhook_id) REFERENCES webhooks (app_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_secrets_webhook ON webhook_secrets (app_id, webhook_id);

-- The outbox: one row per change that a subscribed webhook must hear about. ref is what the
-- change was (ids, the reaction); payload is the envelope's data, rendered once and then
-- sent unchanged by every attempt.
CREATE TABLE webhook_events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    trigger         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    message_id      INTEGER NOT NULL DEFAULT 0,
    ref             TEXT NOT NULL,
    payload         TEXT,
    created_at      INTEGER NOT NULL
);
CREATE INDEX webhook_events_app_time ON webhook_events (app_id, created_at);

-- state: 0 pending, 1 delivered, 2 dead (out of retries). A worker holds a pending one while
-- lease_until is ahead; the delivery before it of the same webhook and conversation must be
-- done (delivered or dead) first.
CREATE TABLE webhook_deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        INTEGER NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    app_id          TEXT NOT NULL,
    webhook_id      TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    state           INTEGER NOT NULL DEFAULT 0,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         INTEGER NOT NULL,
    lease_until     INTEGER NOT NULL DEFAULT 0,
    leased_by       TEXT NOT NULL DEFAULT '',
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    latency_ms      INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    done_at         INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (app_id, webhook_id) REFERENCES webhooks (app_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state = 0;
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (webhook_id, conversation_id, event_id) WHERE state = 0;
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (app_id, webhook_id, id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
