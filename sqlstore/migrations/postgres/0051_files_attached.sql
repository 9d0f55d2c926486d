-- The orphan sweep (issue 37): attached is 1 once a committed message carries the file (set in
-- the message's own transaction), 0 while it is only uploaded; swept_at is when a sweep
-- claimed the unattached file for deletion (0: not claimed), a lease another node takes over
-- when it ends. Files stored before this migration count as attached: nothing said which a
-- message carried, and keeping an orphan is better than deleting a message's file. An upload
-- writes attached 0 explicitly.
ALTER TABLE files ADD COLUMN attached SMALLINT NOT NULL DEFAULT 1;
ALTER TABLE files ADD COLUMN swept_at BIGINT NOT NULL DEFAULT 0;
-- Only the few unattached rows, oldest first: what the sweep reads.
CREATE INDEX files_unattached ON files (created_at) WHERE attached = 0;
