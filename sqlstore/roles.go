package sqlstore

import (
	"context"
	"database/sql"

	"github.com/natter-chat/natter/chat"
)

const roleColumns = `role, name, description, metadata, list_users, send_messages_to, created_at, updated_at`

func scanRole(row scanner, appID string) (chat.Role, error) {
	r := chat.Role{AppID: appID}
	var meta, listUsers, sendTo sql.NullString
	err := row.Scan(&r.Role, &r.Name, &r.Description, &meta, &listUsers, &sendTo, &r.CreatedAt, &r.UpdatedAt)
	if meta.Valid {
		r.Metadata = []byte(meta.String)
	}
	if listUsers.Valid {
		r.Settings = &chat.RoleSettings{ListUsers: listUsers.String, SendMessagesTo: sendTo.String}
	}
	return r, mapErr(err)
}

// settingsArgs are a role's settings columns: both NULL when it has none.
func settingsArgs(s *chat.RoleSettings) (any, any) {
	if s == nil {
		return nil, nil
	}
	return s.ListUsers, s.SendMessagesTo
}

func insertRole(tx *wtx, r chat.Role) error {
	lu, st := settingsArgs(r.Settings)
	_, err := tx.exec(`INSERT INTO roles (app_id, `+roleColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		r.AppID, r.Role, r.Name, r.Description, nullJSON(r.Metadata), lu, st, r.CreatedAt, r.UpdatedAt)
	return mapErr(err)
}

// Role returns a role (chat.RoleStore).
func (db *DB) Role(ctx context.Context, appID, role string) (chat.Role, error) {
	return scanRole(db.read(ctx).row(`SELECT `+roleColumns+` FROM roles WHERE app_id = $1 AND role = $2`, appID, role), appID)
}

// ListRoles lists roles, newest first (chat.RoleStore).
func (db *DB) ListRoles(ctx context.Context, appID string, page chat.Page) ([]chat.Role, int, error) {
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*) FROM roles WHERE app_id = $1`, appID).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	roles, err := collect(run.rows(`SELECT `+roleColumns+` FROM roles WHERE app_id = $1 ORDER BY created_at DESC, role LIMIT $2 OFFSET $3`,
		appID, page.PerPage, page.Offset()), func(s scanner) (chat.Role, error) { return scanRole(s, appID) })
	return roles, total, err
}

// CountRoles counts an app's roles (chat.RoleTx).
func (tx txStore) CountRoles(appID string) (int, error) {
	var n int
	err := tx.row(`SELECT COUNT(*) FROM roles WHERE app_id = $1`, appID).Scan(&n)
	return n, mapErr(err)
}

// InsertRole stores a new role (chat.RoleTx).
func (tx txStore) InsertRole(r chat.Role) error { return insertRole(tx.wtx, r) }

// LockRole holds a role until the transaction ends and reads it (chat.RoleTx). On
// PostgreSQL the row lock also holds off users being given the role (their foreign key
// shares it).
func (tx txStore) LockRole(appID, role string) (chat.Role, error) {
	return scanRole(tx.row(`SELECT `+roleColumns+` FROM roles WHERE app_id = $1 AND role = $2`+tx.db.dialect.forUpdate, appID, role), appID)
}

// SaveRole writes a role's fields (chat.RoleTx).
func (tx txStore) SaveRole(r chat.Role) error {
	lu, st := settingsArgs(r.Settings)
	res, err := tx.exec(`UPDATE roles SET name = $1, description = $2, metadata = $3, list_users = $4, send_messages_to = $5, updated_at = $6
		WHERE app_id = $7 AND role = $8`, r.Name, r.Description, nullJSON(r.Metadata), lu, st, r.UpdatedAt, r.AppID, r.Role)
	return affected(res, err)
}

// DeleteRole moves the role's users to another role and deletes it, its permissions and
// restricted features going with it (chat.RoleTx).
func (tx txStore) DeleteRole(appID, role, to string) error {
	if _, err := tx.exec(`UPDATE users SET role = $1 WHERE app_id = $2 AND role = $3`, to, appID, role); err != nil {
		return mapErr(err)
	}
	res, err := tx.exec(`DELETE FROM roles WHERE app_id = $1 AND role = $2`, appID, role)
	return affected(res, err)
}

// ExistingRoles returns which of roles the app has (chat.RoleTx).
func (tx txStore) ExistingRoles(appID string, roles []string) ([]string, error) {
	if len(roles) == 0 {
		return nil, nil
	}
	args := []any{appID}
	for _, r := range roles {
		args = append(args, r)
	}
	return collect(tx.rows(`SELECT role FROM roles WHERE app_id = $1 AND role IN (`+placeholders(2, len(roles))+`)`, args...),
		func(s scanner) (r string, err error) { return r, s.Scan(&r) })
}

// RestrictedFeatures reads a role's restricted features (chat.FeatureStore).
func (db *DB) RestrictedFeatures(ctx context.Context, appID, role string) (map[string]int64, error) {
	out := map[string]int64{}
	err := each(db.read(ctx).rows(`SELECT feature, created_at FROM role_features WHERE app_id = $1 AND role = $2`, appID, role),
		func(s scanner) error {
			var k string
			var at int64
			err := s.Scan(&k, &at)
			out[k] = at
			return err
		})
	return out, err
}

// RestrictFeatures restricts features for a role; one already restricted keeps its time
// (chat.FeatureTx).
func (tx txStore) RestrictFeatures(appID, role string, keys []string, at int64) error {
	for _, k := range keys {
		if _, err := tx.exec(`INSERT INTO role_features (app_id, role, feature, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (app_id, role, feature) DO NOTHING`, appID, role, k, at); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// AllowFeatures lifts restrictions: of keys, or all when keys is nil (chat.FeatureTx).
func (tx txStore) AllowFeatures(appID, role string, keys []string) error {
	if keys == nil {
		_, err := tx.exec(`DELETE FROM role_features WHERE app_id = $1 AND role = $2`, appID, role)
		return mapErr(err)
	}
	for _, k := range keys {
		if _, err := tx.exec(`DELETE FROM role_features WHERE app_id = $1 AND role = $2 AND feature = $3`, appID, role, k); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// permissionTable is where t's permissions are kept, the columns that name t, and their
// values.
func permissionTable(appID string, t chat.PermissionTarget) (table, where string, args []any) {
	if t.Type == chat.ScopePermission {
		return "scope_permissions", `app_id = $1 AND guid = $2 AND scope = $3`, []any{appID, t.GUID, t.Scope}
	}
	return "role_permissions", `app_id = $1 AND role = $2`, []any{appID, t.Role}
}

func permissionsOf(run runner, appID string, t chat.PermissionTarget) (map[string]chat.StoredPermission, error) {
	table, where, args := permissionTable(appID, t)
	out := map[string]chat.StoredPermission{}
	err := each(run.rows(`SELECT permission, value, updated_at FROM `+table+` WHERE `+where, args...), func(s scanner) error {
		var k string
		var p chat.StoredPermission
		err := s.Scan(&k, &p.Value, &p.UpdatedAt)
		out[k] = p
		return err
	})
	return out, err
}

// Permissions reads the permissions set on t (chat.PermissionStore).
func (db *DB) Permissions(ctx context.Context, appID string, t chat.PermissionTarget) (map[string]chat.StoredPermission, error) {
	return permissionsOf(db.read(ctx), appID, t)
}

// PermissionsOf reads the permissions set on t in the transaction (chat.PermissionTx).
func (tx txStore) PermissionsOf(appID string, t chat.PermissionTarget) (map[string]chat.StoredPermission, error) {
	return permissionsOf(tx.wtx, appID, t)
}

// SetPermissions sets permissions on t (chat.PermissionTx).
func (tx txStore) SetPermissions(appID string, t chat.PermissionTarget, values map[string]string, at int64) error {
	table, _, args := permissionTable(appID, t)
	cols, keys := `app_id, role`, `app_id, role, permission`
	if t.Type == chat.ScopePermission {
		cols, keys = `app_id, guid, scope`, `app_id, guid, scope, permission`
	}
	n := len(args)
	for k, v := range values {
		if _, err := tx.exec(`INSERT INTO `+table+` (`+cols+`, permission, value, updated_at) VALUES (`+placeholders(1, n+3)+`)
			ON CONFLICT (`+keys+`) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			append(args[:n:n], k, v, at)...); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// UnsetPermission removes a permission from t (chat.PermissionTx).
func (tx txStore) UnsetPermission(appID string, t chat.PermissionTarget, key string) error {
	table, where, args := permissionTable(appID, t)
	_, err := tx.exec(`DELETE FROM `+table+` WHERE `+where+` AND permission = $`+itoa(len(args)+1), append(args, key)...)
	return mapErr(err)
}

// PolicyData reads what an app has set for its roles, and whether any group has scope
// permissions (chat.PolicyStore): three small reads, once per app per cache TTL.
func (db *DB) PolicyData(ctx context.Context, appID string) (chat.PolicyData, error) {
	run := db.read(ctx)
	d := chat.PolicyData{Roles: map[string]*chat.StoredRolePolicy{}}
	role := func(r string) *chat.StoredRolePolicy {
		rp := d.Roles[r]
		if rp == nil {
			rp = &chat.StoredRolePolicy{Permissions: map[string]string{}}
			d.Roles[r] = rp
		}
		return rp
	}
	err := each(run.rows(`SELECT role, list_users, send_messages_to FROM roles WHERE app_id = $1 AND list_users IS NOT NULL`, appID),
		func(s scanner) error {
			var r, lu, st string
			err := s.Scan(&r, &lu, &st)
			role(r).Settings = chat.RoleSettings{ListUsers: lu, SendMessagesTo: st}
			return err
		})
	if err != nil {
		return d, err
	}
	err = each(run.rows(`SELECT role, permission, value FROM role_permissions WHERE app_id = $1`, appID), func(s scanner) error {
		var r, k, v string
		err := s.Scan(&r, &k, &v)
		role(r).Permissions[k] = v
		return err
	})
	if err != nil {
		return d, err
	}
	err = each(run.rows(`SELECT role, feature FROM role_features WHERE app_id = $1`, appID), func(s scanner) error {
		var r, k string
		err := s.Scan(&r, &k)
		role(r).Features = append(role(r).Features, k)
		return err
	})
	if err != nil {
		return d, err
	}
	err = run.row(`SELECT EXISTS (SELECT 1 FROM scope_permissions WHERE app_id = $1)`, appID).Scan(&d.Scoped)
	return d, mapErr(err)
}

// ScopePermissions reads one group's scope permissions (chat.PolicyStore).
func (db *DB) ScopePermissions(ctx context.Context, appID, guid string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	err := each(db.read(ctx).rows(`SELECT scope, permission, value FROM scope_permissions WHERE app_id = $1 AND guid = $2`, appID, guid),
		func(s scanner) error {
			var sc, k, v string
			err := s.Scan(&sc, &k, &v)
			if out[sc] == nil {
				out[sc] = map[string]string{}
			}
			out[sc][k] = v
			return err
		})
	return out, err
}

// IsFriend reports whether other is uid's friend (chat.PolicyStore).
func (db *DB) IsFriend(ctx context.Context, appID, uid, other string) (bool, error) {
	var ok bool
	err := db.read(ctx).row(`SELECT EXISTS (SELECT 1 FROM friends WHERE app_id = $1 AND uid = $2 AND friend_uid = $3)`, appID, uid, other).Scan(&ok)
	return ok, mapErr(err)
}

// MessageGroup is the guid of a group message, "" for any other (chat.PolicyStore).
func (db *DB) MessageGroup(ctx context.Context, appID string, id int64) (string, error) {
	var guid string
	err := db.read(ctx).row(`SELECT COALESCE((SELECT receiver FROM messages WHERE app_id = $1 AND id = $2 AND receiver_type = 'group'), '')`,
		appID, id).Scan(&guid)
	return guid, mapErr(err)
}
