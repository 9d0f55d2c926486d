-- reaction_counts without its UNIQUE (message_id, reaction) index. The single writer keeps
-- each message's counts in memory while it changes them (hot.go) and finds a count by its
-- key, so the second index only cost a page written whenever a reaction first appeared on
-- a message. Lookups by (message_id, reaction) outside that path scan one message's
-- counts, which the primary key keeps together.
CREATE TABLE reaction_counts_new (
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    first_id   INTEGER NOT NULL,
    reaction   TEXT NOT NULL,
    count      INTEGER NOT NULL,
    first_at   INTEGER NOT NULL,
    PRIMARY KEY (message_id, first_id)
) WITHOUT ROWID;
INSERT INTO reaction_counts_new (message_id, first_id, reaction, count, first_at)
    SELECT message_id, first_id, reaction, count, first_at FROM reaction_counts;
DROP TABLE reaction_counts;
ALTER TABLE reaction_counts_new RENAME TO reaction_counts;
