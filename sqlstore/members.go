package sqlstore

import (
	"context"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// ListMembers lists a group's members in the order they joined. Without filters the total
// is the group's members_count, kept with the rows, and a page that follows one this
// process served under the same membership version starts where that page ended (keyset)
// rather than walking its offset: the SDK pages in order (page=1, 2, 3, …), so page 100 of
// a 10,000-member group reads 100 members, as page 1 does. A page reached otherwise (a
// jump, another instance, a membership change since) walks its offset as before.
func (db *DB) ListMembers(ctx context.Context, appID, guid string, q chat.MemberQuery) ([]chat.Member, int, error) {
	args := []any{appID, guid}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + itoa(len(args))
	}
	from := ` FROM group_members gm JOIN users u ON u.app_id = gm.app_id AND u.uid = gm.uid`
	where := ` WHERE gm.app_id = $1 AND gm.guid = $2`
	if len(q.Scopes) > 0 {
		ph := make([]string, len(q.Scopes))
		for i, s := range q.Scopes {
			ph[i] = arg(s)
		}
		where += ` AND gm.scope IN (` + strings.Join(ph, ", ") + `)`
	}
	if q.Status != "" {
		where += ` AND u.status = ` + arg(q.Status)
	}
	if q.SearchKey != "" {
		where += ` AND ` + userSearch(arg(chat.SearchKeyPattern(q.SearchKey)))
	}
	run := db.read(ctx)
	var total int
	var version int64
	unfiltered := len(args) == 2
	if unfiltered {
		// The version is read before the page: an end remembered under it was read after
		// it, so it is exact for it, or the version had moved on before it was remembered
		// and a later request reading that newer version will not find it.
		if err := run.fixed(`SELECT members_count, members_version FROM groups WHERE app_id = $1 AND guid = $2`, args...).Scan(&total, &version); err != nil {
			return nil, 0, mapErr(err)
		}
	} else if err := run.row(`SELECT COUNT(*)`+from+where, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	page := q.Page.Number
	if unfiltered && q.Page.Number > 1 {
		if end, ok := db.memberPages.get(memberPage{appID, guid, q.Page.PerPage, q.Page.Number - 1}, version); ok {
			// A row value: both databases take it as a range of group_members_joined.
			where += ` AND (gm.joined_at, gm.uid) > (` + arg(end.joinedAt) + `, ` + arg(end.uid) + `)`
			q.Page = chat.Page{Number: 1, PerPage: q.Page.PerPage} // no offset from there
		}
	}
	// The page size is written into the text, not bound: a prepared statement's generic
	// plan (PostgreSQL's, after its fifth execution) does not know a bound LIMIT and
	// guessed a tenth of the group, sorting all 10,000 members of a large group for a page
	// of 100 (12,102 rows read against 202; TestMemberPageCost's generic replay). A page
	// size is one of a few small numbers, so the texts stay few.
	lim, off := itoa(q.Page.PerPage), arg(q.Page.Offset())
	query := `SELECT ` + prefixed("u.", userColumns) + `, gm.scope, gm.joined_at` + from + where +
		` ORDER BY gm.joined_at, gm.uid LIMIT ` + lim + ` OFFSET ` + off
	if q.Status == "" && q.SearchKey == "" {
		// The page's members first, from the covering index alone, and only then their
		// users: joining first would read a user for every member the offset skips.
		query = `SELECT ` + prefixed("u.", userColumns) + `, gm.scope, gm.joined_at FROM (SELECT gm.app_id, gm.uid, gm.scope, gm.joined_at
			FROM group_members gm` + where + ` ORDER BY gm.joined_at, gm.uid LIMIT ` + lim + ` OFFSET ` + off + `) gm
			JOIN users u ON u.app_id = gm.app_id AND u.uid = gm.uid ORDER BY gm.joined_at, gm.uid`
	}
	members, err := collect(run.rows(query, args...),
		func(s scanner) (chat.Member, error) {
			var m chat.Member
			u, err := scanUser(suffix{s, []any{&m.Scope, &m.JoinedAt}}, appID)
			m.User = u
			return m, err
		})
	if err == nil && unfiltered && len(members) == q.Page.PerPage {
		last := members[len(members)-1]
		db.memberPages.put(memberPage{appID, guid, q.Page.PerPage, page}, memberPageEnd{version, last.JoinedAt, last.User.UID})
	}
	return members, total, err
}

// ListBanned lists the users banned from a group, most recent ban first.
func (db *DB) ListBanned(ctx context.Context, appID, guid string, q chat.MemberQuery) ([]chat.User, int, error) {
	run := db.read(ctx)
	args := []any{appID, guid}
	from := ` FROM group_bans b JOIN users u ON u.app_id = b.app_id AND u.uid = b.uid WHERE b.app_id = $1 AND b.guid = $2`
	if q.SearchKey != "" {
		args = append(args, chat.SearchKeyPattern(q.SearchKey))
		from += ` AND ` + userSearch("$3")
	}
	var total int
	if err := run.row(`SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	n := len(args)
	users, err := collect(run.rows(`SELECT `+prefixed("u.", userColumns)+from+` ORDER BY b.banned_at DESC, b.uid LIMIT $`+itoa(n+1)+` OFFSET $`+itoa(n+2),
		append(args, q.Page.PerPage, q.Page.Offset())...),
		func(s scanner) (chat.User, error) { return scanUser(s, appID) })
	return users, total, err
}

// userSearch is the condition that the user u's uid or lower-cased name starts as the LIKE
// pattern p (chat.SearchKeyPattern), as user lists search.
func userSearch(p string) string {
	return `(u.uid LIKE ` + p + ` ESCAPE '\' OR lower(u.name) LIKE ` + p + ` ESCAPE '\')`
}

// MemberStates reads the users' state in a group (chat.GroupTx).
func (tx txStore) MemberStates(appID, guid string, uids []string) (map[string]chat.MemberState, error) {
	out := make(map[string]chat.MemberState, len(uids))
	if len(uids) == 0 {
		return out, nil
	}
	args := []any{appID, guid}
	for _, u := range uids {
		args = append(args, u)
	}
	err := each(tx.rows(`SELECT `+prefixed("u.", userColumns)+`, COALESCE(gm.scope, ''), COALESCE(gm.joined_at, 0),
		EXISTS (SELECT 1 FROM group_bans b WHERE b.app_id = u.app_id AND b.guid = $2 AND b.uid = u.uid),
		(SELECT COUNT(*) FROM group_members x WHERE x.app_id = u.app_id AND x.uid = u.uid)
		FROM users u LEFT JOIN group_members gm ON gm.app_id = u.app_id AND gm.guid = $2 AND gm.uid = u.uid
		WHERE u.app_id = $1 AND u.uid IN (`+placeholders(3, len(uids))+`)`, args...),
		func(s scanner) error {
			var st chat.MemberState
			u, err := scanUser(suffix{s, []any{&st.Membership.Scope, &st.Membership.JoinedAt, &st.Banned, &st.Groups}}, appID)
			if err != nil {
				return err
			}
			st.User = u
			st.Membership.Banned = st.Banned
			out[u.UID] = st
			return nil
		})
	return out, err
}

// InsertMember adds a member row (chat.GroupTx); the group's count is the caller's.
func (tx txStore) InsertMember(appID, guid, uid, scope string, at int64) error {
	_, err := tx.exec(`INSERT INTO group_members (app_id, guid, uid, scope, joined_at) VALUES ($1, $2, $3, $4, $5)`,
		appID, guid, uid, scope, at)
	return mapErr(err)
}

// DeleteMember removes a member row (chat.GroupTx).
func (tx txStore) DeleteMember(appID, guid, uid string) error {
	res, err := tx.exec(`DELETE FROM group_members WHERE app_id = $1 AND guid = $2 AND uid = $3`, appID, guid, uid)
	return affected(res, err)
}

// SetMemberScope changes a member's scope (chat.GroupTx).
func (tx txStore) SetMemberScope(appID, guid, uid, scope string) error {
	res, err := tx.exec(`UPDATE group_members SET scope = $1 WHERE app_id = $2 AND guid = $3 AND uid = $4`, scope, appID, guid, uid)
	return affected(res, err)
}

// InsertBan records a ban (chat.GroupTx).
func (tx txStore) InsertBan(appID, guid, uid, by string, at int64) error {
	_, err := tx.exec(`INSERT INTO group_bans (app_id, guid, uid, banned_at, banned_by) VALUES ($1, $2, $3, $4, $5)`,
		appID, guid, uid, at, by)
	return mapErr(err)
}

// DeleteBan lifts a ban (chat.GroupTx).
func (tx txStore) DeleteBan(appID, guid, uid string) error {
	res, err := tx.exec(`DELETE FROM group_bans WHERE app_id = $1 AND guid = $2 AND uid = $3`, appID, guid, uid)
	return affected(res, err)
}
