-- A moderation rule's filters (the hosted file's UserFilter and GroupFilter), a JSON array
-- stored as sent, like conditions and action: the engine applies a rule only to messages
-- whose sender, receiver or group they match. '[]' for every rule saved before, which
-- applies to every message as it did.
ALTER TABLE moderation_rules ADD COLUMN filters TEXT NOT NULL DEFAULT '[]';
ALTER TABLE moderation_rule_revisions ADD COLUMN filters TEXT NOT NULL DEFAULT '[]';
