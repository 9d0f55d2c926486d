-- AI agents (chat/agents.go, docs/agents.md): a bot user bound to an HTTP endpoint. The
-- endpoint's extra request headers are kept sealed (AES-256-GCM with natter's webhook key,
-- bound to the app, the agent and their purpose); header_names lists their names for answers.
CREATE TABLE agents (
    app_id           TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    uid              TEXT NOT NULL, -- the bot user
    name             TEXT NOT NULL,
    icon             TEXT NOT NULL DEFAULT '',
    is_active        INTEGER NOT NULL DEFAULT 1,
    integrate_with   TEXT NOT NULL DEFAULT '',
    integration_type TEXT NOT NULL DEFAULT 'agent',
    url              TEXT NOT NULL,
    headers          BLOB, -- sealed JSON object of header name → value; NULL: none
    header_names     TEXT NOT NULL DEFAULT '[]',
    instruction      TEXT NOT NULL DEFAULT '',
    metadata         TEXT,
    history_length   INTEGER NOT NULL,
    timeout_seconds  INTEGER NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    PRIMARY KEY (app_id, uid)
);

-- One message an agent must answer, written in the send's transaction (the outbox): a worker
-- on some node leases it, calls the endpoint, posts the answer and deletes it. reply_id is the
-- bot's message once a streamed answer created it, so a job taken over after a crash edits
-- that message rather than posting a second. Times are UNIX milliseconds.
CREATE TABLE agent_jobs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id          TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    agent_uid       TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    message_id      INTEGER NOT NULL,
    reply_id        INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_until     INTEGER NOT NULL DEFAULT 0,
    leased_by       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX agent_jobs_due ON agent_jobs (lease_until, id);
CREATE INDEX agent_jobs_agent ON agent_jobs (app_id, agent_uid);
