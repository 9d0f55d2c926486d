-- Notification providers and push tokens (docs/notifications.md, "Providers and push tokens").
-- A provider's settings are a JSON object of its kind (chat's FCMSettings, …) with nothing
-- secret in it; its credential is kept sealed (AES-256-GCM with natter's webhook key, bound to
-- the app, the provider and the credential's purpose). Push-token times are UNIX milliseconds.
CREATE TABLE notification_providers (
    app_id      TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL, -- fcm, apns, twilio, sendgrid, custom_push, custom_sms, custom_email
    id          TEXT NOT NULL, -- the providerId of fcm and apns; '' for the kinds an app has one of
    is_default  INTEGER NOT NULL DEFAULT 0,
    enabled     INTEGER NOT NULL DEFAULT 1,
    settings    TEXT NOT NULL,
    secret      BYTEA, -- the sealed credential
    secret_hint TEXT NOT NULL DEFAULT '', -- its masked form, as answers show it
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (app_id, kind, id)
);
-- At most one default per kind; the service keeps exactly one while the kind has any.
CREATE UNIQUE INDEX notification_providers_default ON notification_providers (app_id, kind) WHERE is_default = 1;

-- A device's push token, registered for one auth token (a login), and gone with it: deleting
-- the auth token deletes its push tokens in the same statement. One token of each kind per
-- auth token; a token value belongs to one auth token of its app.
CREATE TABLE push_tokens (
    app_id      TEXT NOT NULL,
    token       TEXT NOT NULL,
    auth_hash   TEXT NOT NULL REFERENCES auth_tokens (hash) ON DELETE CASCADE,
    uid         TEXT NOT NULL, -- the auth token's user
    platform    TEXT NOT NULL,
    kind        TEXT NOT NULL, -- fcm, apns, voip
    provider_id TEXT NOT NULL, -- as registered; 'default': the kind's default provider when sending
    timezone    TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (app_id, token)
);
CREATE UNIQUE INDEX push_tokens_auth_kind ON push_tokens (auth_hash, kind);
CREATE INDEX push_tokens_user ON push_tokens (app_id, uid);
