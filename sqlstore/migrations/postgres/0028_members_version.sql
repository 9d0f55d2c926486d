-- A group's membership version (issue 29, sqlstore/members.go): it moves with every change
-- to the group's member rows, whoever writes them (joins, leaves, kicks, scope changes,
-- imports, a user deleted for good), so that a member page's boundary remembered under one
-- version is known to be exact while the version stands and the next page can start from
-- it rather than walk its offset.
ALTER TABLE groups ADD COLUMN members_version BIGINT NOT NULL DEFAULT 0;
-- A new group's version starts at random: a group deleted and made again under its guid must
-- not come back to a version some instance remembered pages of the old group under.
ALTER TABLE groups ALTER COLUMN members_version SET DEFAULT (floor(random() * 4e18) - 2e18)::bigint;

CREATE FUNCTION group_members_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE groups SET members_version = members_version + 1 WHERE app_id = OLD.app_id AND guid = OLD.guid;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW.app_id <> OLD.app_id OR NEW.guid <> OLD.guid)) THEN
        UPDATE groups SET members_version = members_version + 1 WHERE app_id = NEW.app_id AND guid = NEW.guid;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER group_members_versioned AFTER INSERT OR UPDATE OR DELETE ON group_members
    FOR EACH ROW EXECUTE FUNCTION group_members_version();
