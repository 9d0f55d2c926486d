-- Quoted replies and interactive messages (issue 38). quoted_id is the message a message
-- quotes (0 for none), always one of its own conversation's, checked at send: a page reads
-- the messages its rows quote by id in one query, so it needs no index of its own.
ALTER TABLE messages ADD COLUMN quoted_id BIGINT NOT NULL DEFAULT 0;

-- One row per (interactive message, user, element) the user interacted with (PATCH
-- /messages/{id}/interacted). The key makes a repeated interaction keep its first
-- interacted_at, as the hosted service does; reads are a viewer's rows of a page's messages.
CREATE TABLE message_interactions (
    app_id        TEXT NOT NULL,
    message_id    BIGINT NOT NULL,
    uid           TEXT NOT NULL,
    element_id    TEXT NOT NULL,
    interacted_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, message_id, uid, element_id)
);

-- One row per (interactive message, user) whose interactions completed the message's goal,
-- kept with the interaction that completed it: the lists' onlyInteractionGoalCompleted.
CREATE TABLE message_goals (
    app_id       TEXT NOT NULL,
    message_id   BIGINT NOT NULL,
    uid          TEXT NOT NULL,
    completed_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, message_id, uid)
);
