-- The change log (issue 28, sqlstore/changelog.go): every committed change, written in its
-- own transaction, for the other nodes to follow. pos orders the rows; xid is the writing
-- transaction's id, so that a reader knows which rows may still appear below what it has
-- read (those of transactions still running) and re-reads only those. Rows live for the
-- retention window only.
CREATE TABLE change_log (
    pos        BIGSERIAL PRIMARY KEY,
    xid        BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    node       TEXT NOT NULL,
    message_id BIGINT NOT NULL DEFAULT 0,
    body       TEXT NOT NULL
);
CREATE INDEX change_log_xid ON change_log (xid);
