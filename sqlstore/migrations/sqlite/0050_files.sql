-- Uploaded files (issue 37): one row per stored file, its bytes in the blob store under key
-- (a random 160-bit name, the file's URL's secret part). uid is the uploader: only the
-- uploader's own files go with a message it deletes permanently. name is the display name,
-- sanitised; mime_type the type it is served with.
CREATE TABLE files (
    app_id     TEXT   NOT NULL,
    key        TEXT   NOT NULL,
    uid        TEXT   NOT NULL,
    name       TEXT   NOT NULL,
    mime_type  TEXT   NOT NULL,
    size       BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, key)
);
CREATE INDEX files_uploader ON files (app_id, uid);
