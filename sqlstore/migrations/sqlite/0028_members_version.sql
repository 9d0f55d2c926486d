-- A group's membership version (issue 29, sqlstore/members.go): it moves with every change
-- to the group's member rows, whoever writes them (joins, leaves, kicks, scope changes,
-- imports, a user deleted for good), so that a member page's boundary remembered under one
-- version is known to be exact while the version stands and the next page can start from
-- it rather than walk its offset.
ALTER TABLE groups ADD COLUMN members_version INTEGER NOT NULL DEFAULT 0;

-- A new group's version starts at random: a group deleted and made again under its guid must
-- not come back to a version some instance remembered pages of the old group under.
CREATE TRIGGER groups_members_version AFTER INSERT ON groups
BEGIN
    UPDATE groups SET members_version = random() / 4 WHERE app_id = NEW.app_id AND guid = NEW.guid;
END;

CREATE TRIGGER group_members_joined AFTER INSERT ON group_members
BEGIN
    UPDATE groups SET members_version = members_version + 1 WHERE app_id = NEW.app_id AND guid = NEW.guid;
END;

CREATE TRIGGER group_members_left AFTER DELETE ON group_members
BEGIN
    UPDATE groups SET members_version = members_version + 1 WHERE app_id = OLD.app_id AND guid = OLD.guid;
END;

CREATE TRIGGER group_members_changed AFTER UPDATE ON group_members
BEGIN
    UPDATE groups SET members_version = members_version + 1 WHERE app_id = OLD.app_id AND guid = OLD.guid;
    UPDATE groups SET members_version = members_version + 1 WHERE app_id = NEW.app_id AND guid = NEW.guid
        AND (NEW.app_id <> OLD.app_id OR NEW.guid <> OLD.guid);
END;
