-- Rate limits' shared count (chat/ratelimit.go, docs/ratelimits.md): requests per app, class
-- and one-minute window, leased to nodes in blocks. granted is what the last lease added.
-- SQLite has one natter serve, which counts in memory; the table keeps the schemas in step.
CREATE TABLE rate_counters (
    app_id       TEXT    NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    class        INTEGER NOT NULL,
    window_start INTEGER NOT NULL,
    used         INTEGER NOT NULL,
    granted      INTEGER NOT NULL,
    PRIMARY KEY (app_id, class, window_start)
);
