-- Data import (chat/dataimport.go): what each import key became, so that importing the same
-- item again changes nothing and importing it with other content is refused. kind is user,
-- group, member or message; key is the uid, the guid, "<guid>_member_<uid>" or the muid;
-- digest is the SHA-256 of the item as natter stored it; ref is the message id of an
-- imported message (0 for the other kinds).
CREATE TABLE import_keys (
    app_id TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    kind   TEXT NOT NULL,
    key    TEXT NOT NULL,
    digest TEXT NOT NULL,
    ref    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, kind, key)
);
