-- Call records (chat/calls.go): one row per session, one per participant, and the
-- transcriptions attached to sessions. Times are UNIX seconds, 0 when not yet.
CREATE TABLE calls (
    app_id            TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    session_id        TEXT NOT NULL,
    initiator         TEXT NOT NULL,
    receiver          TEXT NOT NULL,
    receiver_type     TEXT NOT NULL,
    type              TEXT NOT NULL,
    mode              TEXT NOT NULL,
    status            TEXT NOT NULL,
    mid               TEXT NOT NULL,
    initiated_at      INTEGER NOT NULL,
    started_at        INTEGER NOT NULL DEFAULT 0,
    ended_at          INTEGER NOT NULL DEFAULT 0,
    audio_seconds     INTEGER NOT NULL DEFAULT 0,
    video_seconds     INTEGER NOT NULL DEFAULT 0,
    since             INTEGER NOT NULL DEFAULT 0,
    participants      INTEGER NOT NULL DEFAULT 0, -- how many joined (totalParticipants)
    has_transcription INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, session_id)
);
-- The list: newest first.
CREATE INDEX calls_initiated ON calls (app_id, initiated_at DESC, session_id DESC);
-- The status filter.
CREATE INDEX calls_status ON calls (app_id, status, initiated_at DESC);
-- GET /stats's call minutes: the calls started in a window.
CREATE INDEX calls_started ON calls (app_id, started_at) WHERE started_at > 0;

CREATE TABLE call_participants (
    app_id        TEXT NOT NULL,
    session_id    TEXT NOT NULL,
    uid           TEXT NOT NULL,
    state         TEXT NOT NULL,
    is_joined     INTEGER NOT NULL DEFAULT 0,
    joined_at     INTEGER NOT NULL DEFAULT 0,
    left_at       INTEGER NOT NULL DEFAULT 0,
    audio_seconds INTEGER NOT NULL DEFAULT 0,
    video_seconds INTEGER NOT NULL DEFAULT 0,
    since         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, session_id, uid),
    FOREIGN KEY (app_id, session_id) REFERENCES calls (app_id, session_id) ON DELETE CASCADE
);
-- The uid filter, and a user's own calls.
CREATE INDEX call_participants_uid ON call_participants (app_id, uid, session_id);

CREATE TABLE call_transcriptions (
    app_id         TEXT NOT NULL,
    session_id     TEXT NOT NULL,
    tid            TEXT NOT NULL,
    room_name      TEXT NOT NULL,
    mid            TEXT NOT NULL,
    start_time     INTEGER NOT NULL,
    end_time       INTEGER NOT NULL,
    transcript_url TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    seq            INTEGER NOT NULL, -- the order they were attached in
    PRIMARY KEY (app_id, session_id, tid),
    FOREIGN KEY (app_id, session_id) REFERENCES calls (app_id, session_id) ON DELETE CASCADE
);
CREATE INDEX call_transcriptions_seq ON call_transcriptions (app_id, session_id, seq);
