package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/natter-chat/natter/chat"
)

const groupColumns = `g.guid, g.name, g.type, g.password_hash, g.icon, g.description, g.metadata, g.owner,
	g.members_count, g.created_at, g.updated_at, g.updated_by`

// viewerColumns are a viewer's membership of g, and viewerJoin what they read; ph is the
// placeholder of the viewer's uid, an empty string for none.
func viewerColumns(ph string) string {
	return `COALESCE(v.scope, ''), COALESCE(v.joined_at, 0),
	EXISTS (SELECT 1 FROM group_bans b WHERE b.app_id = g.app_id AND b.guid = g.guid AND b.uid = ` + ph + `)`
}

func viewerJoin(ph string) string {
	return ` LEFT JOIN group_members v ON v.app_id = g.app_id AND v.guid = g.guid AND v.uid = ` + ph
}

func scanGroup(row scanner, appID string, viewer bool) (chat.Group, error) {
	g := chat.Group{AppID: appID}
	var meta sql.NullString
	dest := []any{&g.GUID, &g.Name, &g.Type, &g.PasswordHash, &g.Icon, &g.Description, &meta, &g.Owner,
		&g.MembersCount, &g.CreatedAt, &g.UpdatedAt, &g.UpdatedBy}
	var m chat.Membership
	if viewer {
		dest = append(dest, &m.Scope, &m.JoinedAt, &m.Banned)
	}
	if err := row.Scan(dest...); err != nil {
		return g, mapErr(err)
	}
	if meta.Valid {
		g.Metadata = []byte(meta.String)
	}
	if viewer {
		g.Viewer = &m
	}
	return g, nil
}

var groupViewQuery = `SELECT ` + groupColumns + `, ` + viewerColumns("$3") + ` FROM groups g` + viewerJoin("$3") +
	` WHERE g.app_id = $1 AND g.guid = $2`

// Group returns a group with its tags, and viewer's membership when viewer is set.
func (db *DB) Group(ctx context.Context, appID, guid, viewer string) (chat.Group, error) {
	run := db.read(ctx)
	g, err := scanGroup(run.fixed(groupViewQuery, appID, guid, viewer), appID, true)
	if err != nil {
		return g, err
	}
	if viewer == "" {
		g.Viewer = nil
	}
	tags, err := groupTags(run, appID, []string{guid})
	g.Tags = tags[guid]
	return g, err
}

func groupTags(run runner, appID string, guids []string) (map[string][]string, error) {
	return tagsOf(run, "group_tags", "guid", appID, guids)
}

// Membership is uid's membership of guid.
func (db *DB) Membership(ctx context.Context, appID, guid, uid string) (chat.Membership, error) {
	var m chat.Membership
	err := db.read(ctx).fixed(`SELECT COALESCE((SELECT scope FROM group_members WHERE app_id = $1 AND guid = $2 AND uid = $3), ''),
		COALESCE((SELECT joined_at FROM group_members WHERE app_id = $1 AND guid = $2 AND uid = $3), 0),
		EXISTS (SELECT 1 FROM group_bans WHERE app_id = $1 AND guid = $2 AND uid = $3)`, appID, guid, uid).
		Scan(&m.Scope, &m.JoinedAt, &m.Banned)
	return m, mapErr(err)
}

// ListGroups lists groups by name (or q.SortBy), then guid.
func (db *DB) ListGroups(ctx context.Context, appID string, q chat.GroupQuery) ([]chat.Group, int, error) {
	args := []any{appID, q.Viewer}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	from := ` FROM groups g` + viewerJoin("$2")
	where := ` WHERE g.app_id = $1`
	if q.Viewer != "" {
		// A private group shows only to its members.
		where += ` AND (g.type <> 'private' OR v.uid IS NOT NULL)`
		if q.HasJoined {
			where += ` AND v.uid IS NOT NULL`
		}
	}
	if q.SearchKey != "" {
		p := arg(chat.SearchKeyPattern(q.SearchKey))
		in := map[string]bool{}
		for _, s := range q.SearchIn {
			in[s] = true
		}
		var ors []string
		if len(in) == 0 || in["guid"] {
			ors = append(ors, `g.guid LIKE `+p+` ESCAPE '\'`)
		}
		if len(in) == 0 || in["name"] {
			ors = append(ors, `lower(g.name) LIKE `+p+` ESCAPE '\'`)
		}
		where += ` AND (` + strings.Join(ors, " OR ") + `)`
	}
	if len(q.Types) > 0 {
		ph := make([]string, len(q.Types))
		for i, t := range q.Types {
			ph[i] = arg(t)
		}
		where += ` AND g.type IN (` + strings.Join(ph, ", ") + `)`
	}
	if len(q.Tags) > 0 {
		ph := make([]string, len(q.Tags))
		for i, t := range q.Tags {
			ph[i] = arg(t)
		}
		where += ` AND EXISTS (SELECT 1 FROM group_tags t WHERE t.app_id = g.app_id AND t.guid = g.guid AND t.tag IN (` + strings.Join(ph, ", ") + `))`
	}
	if q.GUID != "" {
		where += ` AND g.guid = ` + arg(q.GUID)
	}
	if len(q.GUIDs) > 0 {
		where += ` AND g.guid IN (` + inList(arg, q.GUIDs) + `)`
	}
	where += rangeWhere(`g.created_at`, q.CreatedAt, arg)
	if q.UpdatedAt.Set() { // a group never updated has no updatedAt (0), in no range
		where += ` AND g.updated_at > 0` + rangeWhere(`g.updated_at`, q.UpdatedAt, arg)
	}
	where += countWhere(`g.members_count`, q.MembersCount, arg)
	dir := " ASC"
	if q.SortOrder == "desc" {
		dir = " DESC"
	}
	order := ` ORDER BY lower(g.name)` + dir + `, g.name` + dir + `, g.guid` + dir
	switch q.SortBy {
	case "guid":
		order = ` ORDER BY g.guid` + dir
	case "createdAt":
		order = ` ORDER BY g.created_at` + dir + `, g.guid` + dir
	}
	if q.ChangedSince != nil {
		const changedAt = `(CASE WHEN g.updated_at > 0 THEN g.updated_at ELSE g.created_at END)`
		if q.Affix == "prepend" {
			where += ` AND ` + changedAt + ` <= ` + arg(*q.ChangedSince)
			order = ` ORDER BY ` + changedAt + ` DESC, g.guid DESC`
		} else {
			where += ` AND ` + changedAt + ` >= ` + arg(*q.ChangedSince)
			order = ` ORDER BY ` + changedAt + `, g.guid`
		}
	}
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*)`+from+where, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	lim, off := arg(q.Page.PerPage), arg(q.Page.Offset())
	groups, err := collect(run.rows(`SELECT `+groupColumns+`, `+viewerColumns("$2")+from+where+order+` LIMIT `+lim+` OFFSET `+off, args...),
		func(s scanner) (chat.Group, error) {
			g, err := scanGroup(s, appID, true)
			if q.Viewer == "" {
				g.Viewer = nil
			}
			return g, err
		})
	if err != nil {
		return nil, 0, err
	}
	if q.WithTags && len(groups) > 0 {
		guids := make([]string, len(groups))
		for i, g := range groups {
			guids[i] = g.GUID
		}
		tags, err := groupTags(run, appID, guids)
		if err != nil {
			return nil, 0, err
		}
		for i := range groups {
			groups[i].Tags = tags[groups[i].GUID]
		}
	}
	return groups, total, nil
}

// InsertGroup stores a new group with its tags (chat.GroupTx).
func (tx txStore) InsertGroup(g chat.Group) error {
	_, err := tx.exec(`INSERT INTO groups (app_id, guid, name, type, password_hash, icon, description, metadata, owner,
		members_count, created_at, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		g.AppID, g.GUID, g.Name, g.Type, g.PasswordHash, g.Icon, g.Description, nullJSON(g.Metadata), g.Owner,
		g.MembersCount, g.CreatedAt, g.UpdatedAt, g.UpdatedBy)
	if err != nil {
		return mapErr(err)
	}
	return insertGroupTags(tx.wtx, g.AppID, g.GUID, g.Tags)
}

func insertGroupTags(tx *wtx, appID, guid string, tags []string) error {
	return insertTagsOf(tx, "group_tags", "guid", appID, guid, tags)
}

// LockGroup locks a group for the transaction and reads it with its tags (chat.GroupTx).
func (tx txStore) LockGroup(appID, guid string) (chat.Group, error) {
	g, err := scanGroup(tx.row(`SELECT `+groupColumns+` FROM groups g WHERE g.app_id = $1 AND g.guid = $2`+tx.db.dialect.forUpdate, appID, guid), appID, false)
	if err != nil {
		return g, err
	}
	tags, err := groupTags(tx.wtx, appID, []string{guid})
	g.Tags = tags[guid]
	return g, err
}

// SaveGroup writes a group's fields, and its tags when tags is set (chat.GroupTx).
func (tx txStore) SaveGroup(g chat.Group, tags bool) error {
	res, err := tx.exec(`UPDATE groups SET name = $1, type = $2, password_hash = $3, icon = $4, description = $5,
		metadata = $6, owner = $7, members_count = $8, updated_at = $9, updated_by = $10 WHERE app_id = $11 AND guid = $12`,
		g.Name, g.Type, g.PasswordHash, g.Icon, g.Description, nullJSON(g.Metadata), g.Owner, g.MembersCount,
		g.UpdatedAt, g.UpdatedBy, g.AppID, g.GUID)
	if err := affected(res, err); err != nil || !tags {
		return err
	}
	if _, err := tx.exec(`DELETE FROM group_tags WHERE app_id = $1 AND guid = $2`, g.AppID, g.GUID); err != nil {
		return err
	}
	return insertGroupTags(tx.wtx, g.AppID, g.GUID, g.Tags)
}

// DeleteGroup removes a group with everything in it (chat.GroupTx). Its messages are locked
// first, as reaction changes lock theirs, so that no reaction lands on a message being
// deleted.
func (tx txStore) DeleteGroup(appID, guid string) error {
	conv := chat.GroupConversationID(guid)
	ids, err := collect(tx.rows(`SELECT id FROM messages WHERE app_id = $1 AND conversation_id = $2 ORDER BY id`, appID, conv),
		func(s scanner) (id int64, err error) { return id, s.Scan(&id) })
	if err != nil {
		return err
	}
	if err := tx.db.eng.lockMessages(tx.wtx, ids); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM message_mentions WHERE app_id = $1 AND conversation_id = $2`,
		`DELETE FROM saved_messages WHERE app_id = $1 AND message_id IN (SELECT id FROM messages WHERE app_id = $1 AND conversation_id = $2)`,
		`DELETE FROM message_interactions WHERE app_id = $1 AND message_id IN (SELECT id FROM messages WHERE app_id = $1 AND conversation_id = $2)`,
		`DELETE FROM message_goals WHERE app_id = $1 AND message_id IN (SELECT id FROM messages WHERE app_id = $1 AND conversation_id = $2)`,
		`DELETE FROM thread_subscriptions WHERE app_id = $1 AND conversation_id = $2`,
		`DELETE FROM reaction_counts WHERE message_id IN (SELECT id FROM messages WHERE app_id = $1 AND conversation_id = $2)`,
		`DELETE FROM reactions WHERE app_id = $1 AND message_id IN (SELECT id FROM messages WHERE app_id = $1 AND conversation_id = $2)`,
		`DELETE FROM messages WHERE app_id = $1 AND conversation_id = $2`,
		`DELETE FROM conversation_markers WHERE app_id = $1 AND conversation_id = $2`,
		`DELETE FROM conversations WHERE app_id = $1 AND conversation_id = $2`,
	} {
		if _, err := tx.exec(q, appID, conv); err != nil {
			return err
		}
	}
	for _, q := range []string{
		`DELETE FROM system_pinned_conversations WHERE app_id = $1 AND kind = 'group' AND target = $2`,
		`DELETE FROM notification_mutes WHERE app_id = $1 AND conversation_type = 'group' AND conversation_id = $2`,
	} {
		if _, err := tx.exec(q, appID, guid); err != nil {
			return err
		}
	}
	// Members, bans and tags go by their foreign keys' cascade.
	res, err := tx.exec(`DELETE FROM groups WHERE app_id = $1 AND guid = $2`, appID, guid)
	return affected(res, err)
}
