-- A call's metadata (chat/calls.go): what the client SDK's initiateCall sends as the call's
-- metadata, kept with the session so that each of its call messages and its record carry it.
-- Compacted JSON text; '' when the call has none.
ALTER TABLE calls ADD COLUMN metadata TEXT NOT NULL DEFAULT '';
