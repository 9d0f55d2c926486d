package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/natter-chat/natter/chat"
)

const userColumns = `uid, name, avatar, link, role, status, status_message, metadata, created_at, updated_at,
	last_active_at, deactivated_at, deleted_at`

func scanUser(row scanner, appID string) (chat.User, error) {
	u := chat.User{AppID: appID}
	var meta sql.NullString
	err := row.Scan(&u.UID, &u.Name, &u.Avatar, &u.Link, &u.Role, &u.Status, &u.StatusMessage, &meta,
		&u.CreatedAt, &u.UpdatedAt, &u.LastActiveAt, &u.DeactivatedAt, &u.DeletedAt)
	if meta.Valid {
		u.Metadata = []byte(meta.String)
	}
	return u, mapErr(err)
}

func nullJSON(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// CreateUser inserts a user and its tags; a taken uid is ErrAlreadyExists, a role the app
// does not have ErrRoleNotFound.
func (db *DB) CreateUser(ctx context.Context, u chat.User) error {
	return db.transact(ctx, func(tx *wtx) error { return insertUser(tx, u) })
}

// insertUser inserts a user only if its role exists, in the one statement; on PostgreSQL the
// users' foreign key to roles also refuses a role deleted meanwhile.
func insertUser(tx *wtx, u chat.User) error {
	res, err := tx.exec(`INSERT INTO users (app_id, uid, name, avatar, link, role, status, status_message,
		metadata, created_at) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
		WHERE EXISTS (SELECT 1 FROM roles WHERE app_id = $1 AND role = $6)`,
		u.AppID, u.UID, u.Name, u.Avatar, u.Link, u.Role, u.Status, u.StatusMessage, nullJSON(u.Metadata), u.CreatedAt)
	if err := roleAffected(res, err); err != nil {
		return err
	}
	return insertTags(tx, u.AppID, u.UID, u.Tags)
}

// roleAffected is the outcome of a statement that writes a user's role only if it exists:
// no row, or a foreign-key refusal (a role deleted meanwhile), is ErrRoleNotFound.
func roleAffected(res sql.Result, err error) error {
	if errors.Is(mapErr(err), errForeignKey) {
		return chat.ErrRoleNotFound
	}
	if err := affected(res, err); errors.Is(err, chat.ErrNotFound) {
		return chat.ErrRoleNotFound
	} else if err != nil {
		return err
	}
	return nil
}

func insertTags(tx *wtx, appID, uid string, tags []string) error {
	return insertTagsOf(tx, "user_tags", "uid", appID, uid, tags)
}

// insertTagsOf stores a user's (user_tags, uid) or a group's (group_tags, guid) tags, with
// their order.
func insertTagsOf(tx *wtx, table, col, appID, id string, tags []string) error {
	for i, t := range tags {
		if _, err := tx.exec(`INSERT INTO `+table+` (app_id, `+col+`, tag, pos) VALUES ($1, $2, $3, $4)`, appID, id, t, i); err != nil {
			return err
		}
	}
	return nil
}

const userQuery = `SELECT ` + userColumns + ` FROM users WHERE app_id = $1 AND uid = $2`

// User returns a user without its tags.
func (db *DB) User(ctx context.Context, appID, uid string) (chat.User, error) {
	return scanUser(db.read(ctx).fixed(userQuery, appID, uid), appID)
}

// UserTags returns the listed users' tags in their given order.
func (db *DB) UserTags(ctx context.Context, appID string, uids []string) (map[string][]string, error) {
	return userTags(db.read(ctx), appID, uids)
}

func userTags(run runner, appID string, uids []string) (map[string][]string, error) {
	return tagsOf(run, "user_tags", "uid", appID, uids)
}

// tagsOf reads the tags of the listed users (table user_tags, column uid) or groups
// (group_tags, guid), in the order they were given.
func tagsOf(run runner, table, col, appID string, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{appID}
	for _, id := range ids {
		args = append(args, id)
	}
	err := each(run.rows(`SELECT `+col+`, tag FROM `+table+` WHERE app_id = $1 AND `+col+` IN (`+placeholders(2, len(ids))+`) ORDER BY `+col+`, pos`, args...),
		func(s scanner) error {
			var id, tag string
			err := s.Scan(&id, &tag)
			out[id] = append(out[id], tag)
			return err
		})
	return out, err
}

// UpdateUser applies u to an active user and returns the user with its tags.
func (db *DB) UpdateUser(ctx context.Context, appID, uid string, u chat.UserChange) (chat.User, error) {
	var out chat.User
	err := db.transact(ctx, func(tx *wtx) error {
		set := []string{"updated_at = $1"}
		args := []any{u.UpdatedAt}
		add := func(col string, v any) {
			args = append(args, v)
			set = append(set, col+" = $"+itoa(len(args)))
		}
		if u.Name != nil {
			add("name", *u.Name)
		}
		if u.Avatar != nil {
			add("avatar", *u.Avatar)
		}
		if u.Link != nil {
			add("link", *u.Link)
		}
		if u.Role != nil {
			add("role", *u.Role)
		}
		if u.StatusMessage != nil {
			add("status_message", *u.StatusMessage)
		}
		if u.Metadata != nil {
			add("metadata", nullJSON(u.Metadata))
		}
		for _, f := range u.Unset { // unset wins over a value sent in the same request
			switch f {
			case "avatar":
				add("avatar", "")
			case "link":
				add("link", "")
			case "metadata":
				add("metadata", nil)
			}
		}
		if u.Role != nil { // the role must exist; the writer (SQLite) or the foreign key (PostgreSQL) keeps it so
			var n int
			if err := tx.row(`SELECT COUNT(*) FROM roles WHERE app_id = $1 AND role = $2`, appID, *u.Role).Scan(&n); err != nil {
				return mapErr(err)
			}
			if n == 0 {
				return chat.ErrRoleNotFound
			}
		}
		args = append(args, appID, uid)
		res, err := tx.exec(`UPDATE users SET `+strings.Join(set, ", ")+` WHERE app_id = $`+itoa(len(args)-1)+
			` AND uid = $`+itoa(len(args))+` AND deleted_at = 0 AND deactivated_at = 0`, args...)
		if errors.Is(mapErr(err), errForeignKey) {
			return chat.ErrRoleNotFound
		}
		if err := affected(res, err); err != nil {
			return err
		}
		if u.Tags != nil {
			if _, err := tx.exec(`DELETE FROM user_tags WHERE app_id = $1 AND uid = $2`, appID, uid); err != nil {
				return err
			}
			if err := insertTags(tx, appID, uid, *u.Tags); err != nil {
				return err
			}
		}
		out, err = scanUser(tx.fixed(userQuery, appID, uid), appID)
		if err != nil {
			return err
		}
		tags, err := userTags(tx, appID, []string{uid})
		out.Tags = tags[uid]
		return err
	})
	return out, err
}

// SoftDeleteUser marks a user deleted; the uid stays taken, and so do its messages. Nothing
// brings a deleted user back, so its friendships, auth tokens and notification settings
// (contact details among them) go now, with the mutes of its conversations.
func (db *DB) SoftDeleteUser(ctx context.Context, appID, uid string, at int64) error {
	return db.transact(ctx, func(tx *wtx) error {
		res, err := tx.exec(`UPDATE users SET deleted_at = $1 WHERE app_id = $2 AND uid = $3 AND deleted_at = 0`, at, appID, uid)
		if err := affected(res, err); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM friends WHERE app_id = $1 AND (uid = $2 OR friend_uid = $2)`,
			`DELETE FROM auth_tokens WHERE app_id = $1 AND uid = $2`,
			`DELETE FROM notification_users WHERE app_id = $1 AND uid = $2`,
			`DELETE FROM notification_mutes WHERE app_id = $1 AND (uid = $2 OR (conversation_type = 'oneOnOne' AND conversation_id = $2))`,
		} {
			if _, err := tx.exec(q, appID, uid); err != nil {
				return err
			}
		}
		return nil
	})
}

// PurgeUser removes a user with its tags, the messages it sent or received, its reactions,
// memberships and bans, keeping every other message's reaction counts and every group's
// members count exact.
func (db *DB) PurgeUser(ctx context.Context, appID, uid string) error {
	return db.transact(ctx, func(tx *wtx) error {
		// Every conversation whose markers or row this changes is locked first, in one order:
		// sends and marks lock their conversation before its markers (unread.go), and marks
		// before the messages they stamp read, so a purge that changed the others' kept
		// counts first and the conversations' purged_seq after (its order until issue 39's
		// TestPurgeUserWhileSending) deadlocked with the sends into its groups. Its groups'
		// conversations (its messages, its markers) and its one-to-one ones. SQLite's one
		// writer has nothing to order.
		if db.dialect.concurrentWrites {
			if _, err := tx.exec(`SELECT 1 FROM conversations WHERE app_id = $1 AND (conversation_id IN
					(SELECT conversation_id FROM messages WHERE app_id = $1 AND sender = $2)
				OR conversation_id IN (SELECT conversation_id FROM conversation_markers WHERE app_id = $1 AND uid = $2)
				OR (kind = 'user' AND (uid_a = $2 OR uid_b = $2)))
				ORDER BY conversation_id`+db.dialect.forUpdate, appID, uid); err != nil {
				return err
			}
		}
		// Every message whose reactions or rows this changes is locked next, as reaction
		// changes lock theirs.
		ids, err := collect(tx.rows(`SELECT id FROM messages WHERE app_id = $1 AND (sender = $2
			OR (receiver_type = 'user' AND receiver = $2)
			OR id IN (SELECT message_id FROM reactions WHERE app_id = $1 AND uid = $2)) ORDER BY id`, appID, uid),
			func(s scanner) (id int64, err error) { return id, s.Scan(&id) })
		if err != nil {
			return err
		}
		if err := db.eng.lockMessages(tx, ids); err != nil {
			return err
		}
		// The user's messages go with their reactions and counts (no foreign key cascades
		// them on PostgreSQL); the user's reactions elsewhere leave counts exact.
		steps := []string{
			`DELETE FROM reaction_counts WHERE message_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2)))`,
			`DELETE FROM reactions WHERE message_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2)))`,
			`UPDATE reaction_counts SET count = count - 1 WHERE (message_id, reaction) IN
				(SELECT message_id, reaction FROM reactions WHERE app_id = $1 AND uid = $2)`,
			`DELETE FROM reaction_counts WHERE count <= 0 AND message_id IN
				(SELECT message_id FROM reactions WHERE app_id = $1 AND uid = $2)`,
			`DELETE FROM reactions WHERE app_id = $1 AND uid = $2`,
			// The mentions in its messages leave the others' kept counts (unread.go).
			uncountSenderQuery, purgedSenderSeqQuery,
			`DELETE FROM message_mentions WHERE app_id = $1 AND (uid = $2 OR message_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2))))`,
			`DELETE FROM saved_messages WHERE app_id = $1 AND message_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2)))`,
			`DELETE FROM message_interactions WHERE app_id = $1 AND (uid = $2 OR message_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2))))`,
			`DELETE FROM message_goals WHERE app_id = $1 AND (uid = $2 OR message_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2))))`,
			`DELETE FROM thread_subscriptions WHERE app_id = $1 AND (uid = $2 OR parent_id IN (SELECT id FROM messages
				WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2))))`,
			`DELETE FROM system_pinned_conversations WHERE app_id = $1 AND kind = 'user' AND target = $2`,
			`DELETE FROM messages WHERE app_id = $1 AND (sender = $2 OR (receiver_type = 'user' AND receiver = $2))`,
			// Its memberships go with their groups' counts (the update locks the groups, as
			// membership changes do); a group it owned is the app's.
			`UPDATE groups SET members_count = members_count - 1
				WHERE app_id = $1 AND guid IN (SELECT guid FROM group_members WHERE app_id = $1 AND uid = $2)`,
			`DELETE FROM group_members WHERE app_id = $1 AND uid = $2`,
			`DELETE FROM group_bans WHERE app_id = $1 AND uid = $2`,
			`UPDATE groups SET owner = '' WHERE app_id = $1 AND owner = $2`,
			// Its one-to-one conversations went with their messages; its markers go too.
			`DELETE FROM conversation_markers WHERE app_id = $1 AND (uid = $2 OR conversation_id IN
				(SELECT conversation_id FROM conversations WHERE app_id = $1 AND kind = 'user' AND (uid_a = $2 OR uid_b = $2)))`,
			`DELETE FROM conversations WHERE app_id = $1 AND kind = 'user' AND (uid_a = $2 OR uid_b = $2)`,
			// Its own notification rows go by their foreign keys; others' mutes of it here.
			`DELETE FROM notification_mutes WHERE app_id = $1 AND conversation_type = 'oneOnOne' AND conversation_id = $2`,
		}
		for _, s := range steps {
			if _, err := tx.exec(s, appID, uid); err != nil {
				return err
			}
		}
		if err := db.sweepOneToOnes(tx, appID, uid); err != nil {
			return err
		}
		res, err := tx.exec(`DELETE FROM users WHERE app_id = $1 AND uid = $2`, appID, uid)
		return affected(res, err)
	})
}

// purgeOneToOnesSteps delete a purged user's one-to-one messages, then its markers and
// those of its one-to-one conversations, then those conversations.
var purgeOneToOnesSteps = []string{
	`DELETE FROM message_mentions WHERE app_id = $1 AND message_id IN (SELECT id FROM messages
		WHERE app_id = $1 AND receiver_type = 'user' AND (sender = $2 OR receiver = $2))`,
	`DELETE FROM messages WHERE app_id = $1 AND receiver_type = 'user' AND (sender = $2 OR receiver = $2)`,
	`DELETE FROM conversation_markers WHERE app_id = $1 AND (uid = $2 OR conversation_id IN
		(SELECT conversation_id FROM conversations WHERE app_id = $1 AND kind = 'user' AND (uid_a = $2 OR uid_b = $2)))`,
	`DELETE FROM conversations WHERE app_id = $1 AND kind = 'user' AND (uid_a = $2 OR uid_b = $2)`,
}

// sweepOneToOnes repeats, on PostgreSQL, the deletion of a purged user's one-to-one
// messages, markers and conversations until a pass finds nothing (at most a few passes). A
// send that creates a one-to-one conversation with the user while the purge runs has no row
// for the purge to lock, and may commit between those statements, each with its own
// snapshot (READ COMMITTED): its message deleted and its markers not, or the other way
// round, a kept count left off (TestPurgeUserWhileSending). A pass that deletes nothing saw
// no such send before any of its statements, so one that commits later leaves its message
// with its markers and conversation, all of them counted alike. SQLite's one writer lets no
// send in.
func (db *DB) sweepOneToOnes(tx *wtx, appID, uid string) error {
	if !db.dialect.concurrentWrites {
		return nil
	}
	for range 8 {
		var n int64
		for _, q := range purgeOneToOnesSteps {
			res, err := tx.exec(q, appID, uid)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += k
		}
		if n == 0 {
			return nil
		}
	}
	return nil
}

// ListUsers lists users by name, then uid.
func (db *DB) ListUsers(ctx context.Context, appID string, q chat.UserQuery) ([]chat.User, int, error) {
	where := ` FROM users u WHERE u.app_id = $1 AND u.deleted_at = 0`
	args := []any{appID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	switch q.Deactivated {
	case chat.OnlyActive:
		where += ` AND u.deactivated_at = 0`
	case chat.OnlyDeactivated:
		where += ` AND u.deactivated_at > 0`
	}
	if q.SearchKey != "" {
		p := arg(chat.SearchKeyPattern(q.SearchKey))
		in := map[string]bool{}
		for _, s := range q.SearchIn {
			in[s] = true
		}
		var ors []string
		if len(in) == 0 || in["uid"] {
			ors = append(ors, `u.uid LIKE `+p+` ESCAPE '\'`)
		}
		if len(in) == 0 || in["name"] {
			ors = append(ors, `lower(u.name) LIKE `+p+` ESCAPE '\'`)
		}
		where += ` AND (` + strings.Join(ors, " OR ") + `)`
	}
	if len(q.Statuses) > 0 {
		where += ` AND u.status IN (` + inList(arg, q.Statuses) + `)`
	}
	where += rangeWhere(`u.created_at`, q.CreatedAt, arg)
	if q.UpdatedAt.Set() { // a user never updated has no updatedAt (0), in no range
		where += ` AND u.updated_at > 0` + rangeWhere(`u.updated_at`, q.UpdatedAt, arg)
	}
	if len(q.Roles) > 0 {
		ph := make([]string, len(q.Roles))
		for i, r := range q.Roles {
			ph[i] = arg(r)
		}
		where += ` AND u.role IN (` + strings.Join(ph, ", ") + `)`
	}
	if len(q.Tags) > 0 {
		ph := make([]string, len(q.Tags))
		for i, t := range q.Tags {
			ph[i] = arg(t)
		}
		where += ` AND EXISTS (SELECT 1 FROM user_tags t WHERE t.app_id = u.app_id AND t.uid = u.uid AND t.tag IN (` + strings.Join(ph, ", ") + `))`
	}
	if len(q.UIDs) > 0 {
		ph := make([]string, len(q.UIDs))
		for i, u := range q.UIDs {
			ph[i] = arg(u)
		}
		where += ` AND u.uid IN (` + strings.Join(ph, ", ") + `)`
	}
	if q.HideBlockedBy != "" {
		where += ` AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.app_id = u.app_id AND b.uid = ` + arg(q.HideBlockedBy) + ` AND b.blocked_uid = u.uid)`
	}
	if q.FriendsOf != "" {
		where += ` AND EXISTS (SELECT 1 FROM friends f WHERE f.app_id = u.app_id AND f.uid = ` + arg(q.FriendsOf) + ` AND f.friend_uid = u.uid)`
	}
	if q.BlocksOf != "" {
		b := arg(q.BlocksOf)
		byMe := `EXISTS (SELECT 1 FROM blocks b WHERE b.app_id = u.app_id AND b.uid = ` + b + ` AND b.blocked_uid = u.uid)`
		ofMe := `EXISTS (SELECT 1 FROM blocks b WHERE b.app_id = u.app_id AND b.uid = u.uid AND b.blocked_uid = ` + b + `)`
		switch q.BlockDirection {
		case chat.HasBlockedMe:
			where += ` AND ` + ofMe
		case chat.BlockedBoth:
			where += ` AND (` + byMe + ` OR ` + ofMe + `)`
		default:
			where += ` AND ` + byMe
		}
	}
	order := ` ORDER BY lower(u.name), u.name, u.uid`
	if q.ChangedSince != nil {
		const changedAt = `(CASE WHEN u.updated_at > 0 THEN u.updated_at ELSE u.created_at END)`
		if q.Affix == "prepend" {
			where += ` AND ` + changedAt + ` <= ` + arg(*q.ChangedSince)
			order = ` ORDER BY ` + changedAt + ` DESC, u.uid DESC`
		} else {
			where += ` AND ` + changedAt + ` >= ` + arg(*q.ChangedSince)
			order = ` ORDER BY ` + changedAt + `, u.uid`
		}
	}
	run := db.read(ctx)
	var total int
	if err := run.row(`SELECT COUNT(*)`+where, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	cols := prefixed("u.", userColumns)
	if q.Viewer != "" { // the block fields as the viewer sees each user
		v := arg(q.Viewer)
		cols += `, COALESCE((SELECT blocked_at FROM blocks b WHERE b.app_id = u.app_id AND b.uid = ` + v + ` AND b.blocked_uid = u.uid), 0),
			COALESCE((SELECT blocked_at FROM blocks b WHERE b.app_id = u.app_id AND b.uid = u.uid AND b.blocked_uid = ` + v + `), 0)`
	}
	lim, off := arg(q.Page.PerPage), arg(q.Page.Offset())
	users, err := collect(run.rows(`SELECT `+cols+where+order+` LIMIT `+lim+` OFFSET `+off, args...),
		func(s scanner) (chat.User, error) {
			if q.Viewer == "" {
				return scanUser(s, appID)
			}
			var b chat.BlockState
			u, err := scanUser(suffix{s, []any{&b.BlockedByMeAt, &b.HasBlockedMeAt}}, appID)
			u.Blocks = &b
			return u, err
		})
	if err != nil {
		return nil, 0, err
	}
	if q.WithTags && len(users) > 0 {
		uids := make([]string, len(users))
		for i, u := range users {
			uids[i] = u.UID
		}
		tags, err := db.UserTags(ctx, appID, uids)
		if err != nil {
			return nil, 0, err
		}
		for i := range users {
			users[i].Tags = tags[users[i].UID]
		}
	}
	return users, total, nil
}

// SetDeactivated sets or clears deactivation on the listed, not deleted users and returns
// the uids that exist.
func (db *DB) SetDeactivated(ctx context.Context, appID string, uids []string, at int64) ([]string, error) {
	args := []any{at, appID}
	for _, u := range uids {
		args = append(args, u)
	}
	// Deactivating keeps the first deactivation time; reactivating clears it.
	var done []string
	err := db.transact(ctx, func(tx *wtx) error {
		var err error
		done, err = collect(tx.rows(`UPDATE users SET deactivated_at = CASE WHEN $1 = 0 THEN 0
			WHEN deactivated_at > 0 THEN deactivated_at ELSE $1 END
			WHERE app_id = $2 AND deleted_at = 0 AND uid IN (`+placeholders(3, len(uids))+`) RETURNING uid`, args...),
			func(s scanner) (uid string, err error) { return uid, s.Scan(&uid) })
		return err
	})
	if done == nil {
		done = []string{}
	}
	return done, err
}
