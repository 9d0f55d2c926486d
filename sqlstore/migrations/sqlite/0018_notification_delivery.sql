-- Notification delivery (docs/notifications.md, "Sending"). A change that may notify writes one
-- notification event in its own transaction; a worker on some node leases the event, decides
-- per recipient and channel, writes a log record per decision and a pending send per one that
-- passed, and deletes the event. Senders lease due sends and log each attempt. Times are UNIX
-- milliseconds.
CREATE TABLE notification_events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    trigger         TEXT NOT NULL, -- message_sent, …
    conversation_id TEXT NOT NULL,
    message_id      INTEGER NOT NULL DEFAULT 0,
    ref             TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_until     INTEGER NOT NULL DEFAULT 0,
    leased_by       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX notification_events_due ON notification_events (lease_until, id);

-- One pending notification to one destination (a push token, a phone number, an email
-- address; '' for a custom provider that is not given stored contact details). Deleted when
-- done: the log keeps what came of it.
CREATE TABLE notification_sends (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    event_id        INTEGER NOT NULL,
    trigger         TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    message_id      INTEGER NOT NULL DEFAULT 0,
    uid             TEXT NOT NULL, -- the recipient
    channel         TEXT NOT NULL, -- push, sms, email
    provider        TEXT NOT NULL, -- fcm, apns, twilio, sendgrid, custom
    provider_id     TEXT NOT NULL DEFAULT '', -- a push token's providerId
    destination     TEXT NOT NULL,
    token_kind      TEXT NOT NULL DEFAULT '', -- fcm, apns, voip
    ref             TEXT NOT NULL DEFAULT '{}', -- the event's: who reacted with what
    recheck         INTEGER NOT NULL DEFAULT 0, -- only if the message is still unread then
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         INTEGER NOT NULL,
    lease_until     INTEGER NOT NULL DEFAULT 0,
    leased_by       TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    UNIQUE (event_id, uid, channel, destination)
);
CREATE INDEX notification_sends_due ON notification_sends (next_at);

-- The delivery log: one record per decision (attempt 0) and one per attempt to send.
CREATE TABLE notification_logs (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id                 TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    event_id               INTEGER NOT NULL,
    trigger                TEXT NOT NULL,
    message_id             INTEGER NOT NULL DEFAULT 0,
    message_category       TEXT NOT NULL DEFAULT '',
    message_type           TEXT NOT NULL DEFAULT '',
    sender                 TEXT NOT NULL DEFAULT '',
    receiver               TEXT NOT NULL DEFAULT '', -- the message's receiver: a uid or a guid
    receiver_type          TEXT NOT NULL DEFAULT '',
    recipient              TEXT NOT NULL, -- the user notified, or not
    reaction_id            INTEGER NOT NULL DEFAULT 0, -- a reaction's row
    member                 TEXT NOT NULL DEFAULT '', -- the user a member change is about
    channel                TEXT NOT NULL,
    provider               TEXT NOT NULL DEFAULT '',
    notification_triggered INTEGER NOT NULL,
    reason                 TEXT NOT NULL DEFAULT '',
    success                INTEGER NOT NULL DEFAULT 0,
    attempt                INTEGER NOT NULL DEFAULT 0,
    status                 INTEGER NOT NULL DEFAULT 0,
    latency_ms             INTEGER NOT NULL DEFAULT 0,
    created_at             INTEGER NOT NULL
);
CREATE INDEX notification_logs_app ON notification_logs (app_id, id);
CREATE INDEX notification_logs_time ON notification_logs (created_at);
