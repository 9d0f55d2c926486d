-- Usage metrics (chat/stats.go, docs/metrics.md), rolled up: nodes count in memory and add
-- their figures here every few seconds, so GET /stats and GET /stats/messages read these
-- small tables, never the messages.

-- An app's figures per 5-minute bucket: counts added by every node, and the peak of users
-- connected to the real-time socket, summed over nodes.
CREATE TABLE usage_buckets (
    app_id            TEXT    NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    bucket            INTEGER NOT NULL, -- unix second the bucket starts (UTC, a multiple of 300)
    messages_sent     INTEGER NOT NULL DEFAULT 0,
    read_receipts     INTEGER NOT NULL DEFAULT 0,
    delivery_receipts INTEGER NOT NULL DEFAULT 0,
    concurrent_users  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, bucket)
) WITHOUT ROWID;

-- An app's peak of concurrent users per UTC day (the largest of its buckets'), so that a
-- long window reads a row a day and the buckets of its two partial days.
CREATE TABLE usage_days (
    app_id           TEXT    NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    day              INTEGER NOT NULL, -- unix second the day starts
    concurrent_users INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, day)
) WITHOUT ROWID;

-- The users active on a UTC day: the day's 288 buckets as bits, bucket k being bit k%64 of
-- bk/64 (b0 … b4), so a window's first and last days count only the buckets it covers.
CREATE TABLE usage_active_days (
    app_id TEXT    NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    day    INTEGER NOT NULL, -- unix second the day starts
    uid    TEXT    NOT NULL,
    b0     INTEGER NOT NULL DEFAULT 0,
    b1     INTEGER NOT NULL DEFAULT 0,
    b2     INTEGER NOT NULL DEFAULT 0,
    b3     INTEGER NOT NULL DEFAULT 0,
    b4     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, day, uid)
) WITHOUT ROWID;

-- The users active in a UTC month, with the days they were active on as bits (day d of the
-- month is bit d-1), so that a year's window reads thirteen months of these and the two
-- partial days at its ends, not 365 days.
CREATE TABLE usage_active_months (
    app_id TEXT    NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    month  INTEGER NOT NULL, -- unix second the month starts
    uid    TEXT    NOT NULL,
    days   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, month, uid)
) WITHOUT ROWID;

-- The last batch each natter process saved, so that a batch retried after a commit whose
-- outcome was not heard is not added twice.
CREATE TABLE usage_nodes (
    node     TEXT    NOT NULL PRIMARY KEY,
    seq      INTEGER NOT NULL,
    saved_at INTEGER NOT NULL
) WITHOUT ROWID;
