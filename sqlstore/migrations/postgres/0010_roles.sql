-- Roles and their permissions (chat/roles.go, chat/permissions.go, chat/features.go).
-- Every app has the role `default`; a user's role is one of its app's roles.
CREATE TABLE roles (
    app_id           TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    role             TEXT NOT NULL,
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    metadata         TEXT,
    list_users       TEXT, -- settings.listUsers, all or friendsOnly; NULL: the role has no settings
    send_messages_to TEXT, -- settings.sendMessagesTo
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, role)
);
-- The apps made before roles get their default role, and a role for every role their users
-- were given, so that every user's role exists.
INSERT INTO roles (app_id, role, name, description, created_at)
    SELECT id, 'default', 'Default Role', 'This role gives full access', GREATEST(created_at, 1) FROM apps;
INSERT INTO roles (app_id, role, name, created_at)
    SELECT u.app_id, u.role, u.role, GREATEST(MIN(u.created_at), 1) FROM users u
    WHERE u.role <> 'default' GROUP BY u.app_id, u.role;
-- A user's role exists: a user given a role being deleted waits for the delete, which has
-- moved the role's users to default, and then fails (sqlstore/users.go answers
-- ERR_ROLE_NOT_FOUND).
ALTER TABLE users ADD FOREIGN KEY (app_id, role) REFERENCES roles (app_id, role);

-- A role's users: moved to default when it is deleted, and the user lists' role filter.
CREATE INDEX users_role ON users (app_id, role);

-- The permissions set for a role (the others have their defaults), values as JSON.
CREATE TABLE role_permissions (
    app_id     TEXT NOT NULL,
    role       TEXT NOT NULL,
    permission TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, role, permission),
    FOREIGN KEY (app_id, role) REFERENCES roles (app_id, role) ON DELETE CASCADE
);

-- The features restricted for a role ("u.listUsers").
CREATE TABLE role_features (
    app_id     TEXT NOT NULL,
    role       TEXT NOT NULL,
    feature    TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, role, feature),
    FOREIGN KEY (app_id, role) REFERENCES roles (app_id, role) ON DELETE CASCADE
);

-- The permissions set for a scope of a group.
CREATE TABLE scope_permissions (
    app_id     TEXT NOT NULL,
    guid       TEXT NOT NULL,
    scope      TEXT NOT NULL,
    permission TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, guid, scope, permission),
    FOREIGN KEY (app_id, guid) REFERENCES groups (app_id, guid) ON DELETE CASCADE
);
