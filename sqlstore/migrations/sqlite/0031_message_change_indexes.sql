-- The edited and the updated messages, for GET /messages' editedAt and updatedAt ranges
-- (issue 38, sqlstore/history.go): few of an app's messages are ever changed, so a range of
-- them is read from these rather than by walking the app's messages by id. Partial, so that
-- a send writes neither; each predicate is the query's term word for word, as SQLite needs
-- to use a partial index.
CREATE INDEX messages_edited ON messages (app_id, edited_at) WHERE edited_at > 0;
CREATE INDEX messages_updated ON messages (app_id, updated_at) WHERE (edited_at > 0 OR deleted_at > 0);
