-- Reaction changes take their message's lock (an advisory lock, reactions_pg.go) and natter
-- deletes a message's reactions and counts itself when it deletes the message, so the two
-- foreign keys to messages only cost a lookup of the message for every row written. Counts
-- are found by their primary key, so UNIQUE (message_id, reaction) only cost one more index
-- entry whenever a reaction first appeared on a message (SQLite dropped it in its 0002).
ALTER TABLE reactions DROP CONSTRAINT reactions_message_id_fkey;
ALTER TABLE reaction_counts DROP CONSTRAINT reaction_counts_message_id_fkey;
ALTER TABLE reaction_counts DROP CONSTRAINT reaction_counts_message_id_reaction_key;
