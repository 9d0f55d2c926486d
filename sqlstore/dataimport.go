package sqlstore

import (
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// Data import (chat/dataimport.go): a request's batch in one transaction, each table written
// with multi-row statements of at most importChunkArgs arguments (SQLite allows 32,766 per
// statement, PostgreSQL 65,535), so a batch of 1,000 messages is a handful of statements.

const importChunkArgs = 8000

// params is a list of n placeholders, the first numbered from, in the dialect's own syntax
// (dialect.params): $from, … on PostgreSQL; on SQLite bare ?s (bareParams). Queries using
// it run through execRaw and rowsRaw.
func (tx txStore) params(from, n int) string { return tx.db.dialect.params(from, n) }

// bareParams is SQLite's params: bare ?s, which SQLite numbers on from the previous one. (A
// ?NNN or $NNN costs SQLite a scan of the statement's parameter names per bind, which is
// quadratic in a statement of thousands.)
func bareParams(_, n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// multiInsert runs head + "VALUES (…), (…)" + tail for n rows of cols arguments each, in
// chunks, passing each chunk's statement (in the dialect's syntax) and arguments to run.
// head and tail hold no placeholders.
func (tx txStore) multiInsert(n, cols int, head, tail string, args func(i int) []any, run func(query string, args []any) error) error {
	per := max(importChunkArgs/cols, 1)
	for from := 0; from < n; from += per {
		to := min(from+per, n)
		var b strings.Builder
		b.WriteString(head)
		b.WriteString(" VALUES ")
		all := make([]any, 0, (to-from)*cols)
		for i := from; i < to; i++ {
			if i > from {
				b.WriteString(", ")
			}
			b.WriteString("(" + tx.params(len(all)+1, cols) + ")")
			all = append(all, args(i)...)
		}
		b.WriteString(tail)
		if err := run(b.String(), all); err != nil {
			return err
		}
	}
	return nil
}

func (tx txStore) execMulti(n, cols int, head, tail string, args func(i int) []any) error {
	return tx.multiInsert(n, cols, head, tail, args, func(q string, a []any) error {
		_, err := tx.execRaw(q, a...)
		return mapErr(err)
	})
}

// inChunks calls fn with the ids in chunks small enough for one statement's arguments.
func inChunks(ids []string, fn func(chunk []string) error) error {
	for from := 0; from < len(ids); from += importChunkArgs {
		if err := fn(ids[from:min(from+importChunkArgs, len(ids))]); err != nil {
			return err
		}
	}
	return nil
}

// LockImports serialises imports into the app (chat.ImportTx): on PostgreSQL a transaction
// advisory lock, so that two import requests never both take a key or number the same
// conversation; SQLite's single writer already does.
func (tx txStore) LockImports(appID string) error {
	if !tx.db.dialect.concurrentWrites {
		return nil
	}
	_, err := tx.exec(`SELECT pg_advisory_xact_lock(hashtextextended('natter-import:' || $1, 0))`, appID)
	return mapErr(err)
}

// ImportRecords returns the records of keys imported before (chat.ImportTx).
func (tx txStore) ImportRecords(appID, kind string, keys []string) (map[string]chat.ImportRecord, error) {
	out := make(map[string]chat.ImportRecord, len(keys))
	err := inChunks(keys, func(chunk []string) error {
		args := []any{appID, kind}
		for _, k := range chunk {
			args = append(args, k)
		}
		return each(tx.rowsRaw(tx.db.q(`SELECT key, digest, ref FROM import_keys WHERE app_id = $1 AND kind = $2 AND key IN (`)+
			tx.params(3, len(chunk))+`)`, args...), func(s scanner) error {
			var r chat.ImportRecord
			if err := s.Scan(&r.Key, &r.Digest, &r.Ref); err != nil {
				return err
			}
			out[r.Key] = r
			return nil
		})
	})
	return out, err
}

// SaveImportRecords records imported keys (chat.ImportTx).
func (tx txStore) SaveImportRecords(appID, kind string, recs []chat.ImportRecord) error {
	return tx.execMulti(len(recs), 5, `INSERT INTO import_keys (app_id, kind, key, digest, ref)`, ``, func(i int) []any {
		return []any{appID, kind, recs[i].Key, recs[i].Digest, recs[i].Ref}
	})
}

// existing returns which of ids are in table's column for the app.
func (tx txStore) existing(table, col, appID string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	err := inChunks(ids, func(chunk []string) error {
		args := []any{appID}
		for _, id := range chunk {
			args = append(args, id)
		}
		return each(tx.rowsRaw(tx.db.q(`SELECT `+col+` FROM `+table+` WHERE app_id = $1 AND `+col+` IN (`)+tx.params(2, len(chunk))+`)`, args...),
			func(s scanner) error {
				var id string
				if err := s.Scan(&id); err != nil {
					return err
				}
				out[id] = true
				return nil
			})
	})
	return out, err
}

// ExistingUsers returns which of uids are users (chat.ImportTx).
func (tx txStore) ExistingUsers(appID string, uids []string) (map[string]bool, error) {
	return tx.existing("users", "uid", appID, uniqStrings(uids))
}

// ExistingGroups returns which of guids are groups (chat.ImportTx).
func (tx txStore) ExistingGroups(appID string, guids []string) (map[string]bool, error) {
	return tx.existing("groups", "guid", appID, uniqStrings(guids))
}

// ExistingMemberships returns which memberships are members or bans already (chat.ImportTx).
// Each chunk asks for its guids and its uids together, so a large group's other members are
// not read.
func (tx txStore) ExistingMemberships(appID string, ms []chat.MemberImport) (map[string]bool, error) {
	out := map[string]bool{}
	const per = importChunkArgs / 2
	for from := 0; from < len(ms); from += per {
		chunk := ms[from:min(from+per, len(ms))]
		want := map[string]bool{}
		var guids, uids []string
		for _, m := range chunk {
			want[chat.MemberKey(m.GUID, m.UID)] = true
			guids = append(guids, m.GUID)
			uids = append(uids, m.UID)
		}
		guids, uids = uniqStrings(guids), uniqStrings(uids)
		args := []any{appID}
		for _, g := range guids {
			args = append(args, g)
		}
		for _, u := range uids {
			args = append(args, u)
		}
		for _, table := range []string{"group_members", "group_bans"} {
			q := tx.db.q(`SELECT guid, uid FROM `+table+` WHERE app_id = $1 AND guid IN (`) + tx.params(2, len(guids)) +
				`) AND uid IN (` + tx.params(2+len(guids), len(uids)) + `)`
			err := each(tx.rowsRaw(q, args...), func(s scanner) error {
				var g, u string
				if err := s.Scan(&g, &u); err != nil {
					return err
				}
				if k := chat.MemberKey(g, u); want[k] {
					out[k] = true
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// InsertImportedUsers inserts users and their tags (chat.ImportTx).
func (tx txStore) InsertImportedUsers(users []chat.User) error {
	err := tx.execMulti(len(users), 12, `INSERT INTO users (app_id, uid, name, avatar, link, role, status, status_message,
		metadata, created_at, last_active_at, deactivated_at)`, ``, func(i int) []any {
		u := users[i]
		return []any{u.AppID, u.UID, u.Name, u.Avatar, u.Link, u.Role, u.Status, u.StatusMessage, nullJSON(u.Metadata),
			u.CreatedAt, u.LastActiveAt, u.DeactivatedAt}
	})
	if err != nil {
		return err
	}
	var tags [][4]any
	for _, u := range users {
		for j, t := range u.Tags {
			tags = append(tags, [4]any{u.AppID, u.UID, t, j})
		}
	}
	return tx.execMulti(len(tags), 4, `INSERT INTO user_tags (app_id, uid, tag, pos)`, ``, func(i int) []any { return tags[i][:] })
}

// InsertImportedGroups inserts groups and their tags (chat.ImportTx).
func (tx txStore) InsertImportedGroups(groups []chat.Group) error {
	err := tx.execMulti(len(groups), 11, `INSERT INTO groups (app_id, guid, name, type, password_hash, icon, description, metadata, owner,
		members_count, created_at)`, ``, func(i int) []any {
		g := groups[i]
		return []any{g.AppID, g.GUID, g.Name, g.Type, g.PasswordHash, g.Icon, g.Description, nullJSON(g.Metadata), g.Owner, 0, g.CreatedAt}
	})
	if err != nil {
		return err
	}
	var tags [][4]any
	for _, g := range groups {
		for j, t := range g.Tags {
			tags = append(tags, [4]any{g.AppID, g.GUID, t, j})
		}
	}
	return tx.execMulti(len(tags), 4, `INSERT INTO group_tags (app_id, guid, tag, pos)`, ``, func(i int) []any { return tags[i][:] })
}

// InsertImportedMembers inserts members and bans, and counts the members in their groups
// (chat.ImportTx).
func (tx txStore) InsertImportedMembers(ms []chat.ImportedMember) error {
	var members, bans []chat.ImportedMember
	counts := map[string]int{}
	var order []string
	for _, m := range ms {
		if m.IsBanned {
			bans = append(bans, m)
			continue
		}
		members = append(members, m)
		if counts[m.GUID] == 0 {
			order = append(order, m.GUID)
		}
		counts[m.GUID]++
	}
	err := tx.execMulti(len(members), 5, `INSERT INTO group_members (app_id, guid, uid, scope, joined_at)`, ``, func(i int) []any {
		m := members[i]
		return []any{m.AppID, m.GUID, m.UID, m.Scope, m.JoinedAt}
	})
	if err != nil {
		return err
	}
	err = tx.execMulti(len(bans), 5, `INSERT INTO group_bans (app_id, guid, uid, banned_at, banned_by)`, ``, func(i int) []any {
		m := bans[i]
		return []any{m.AppID, m.GUID, m.UID, m.JoinedAt, chat.SystemUID}
	})
	if err != nil {
		return err
	}
	for _, guid := range order {
		if _, err := tx.exec(`UPDATE groups SET members_count = members_count + $1 WHERE app_id = $2 AND guid = $3`,
			counts[guid], ms[0].AppID, guid); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// ConversationTails returns the existing conversations among ids with their last seq and
// last message's sentAt, locking their rows on PostgreSQL (chat.ImportTx).
func (tx txStore) ConversationTails(appID string, ids []string) (map[string]chat.ConversationTail, error) {
	out := map[string]chat.ConversationTail{}
	lock := tx.db.dialect.lock(" FOR UPDATE OF c")
	err := inChunks(uniqStrings(ids), func(chunk []string) error {
		args := []any{appID}
		for _, id := range chunk {
			args = append(args, id)
		}
		return each(tx.rowsRaw(tx.db.q(`SELECT c.conversation_id, c.last_seq, COALESCE(m.sent_at, 0) FROM conversations c
			LEFT JOIN messages m ON m.id = c.last_message_id
			WHERE c.app_id = $1 AND c.conversation_id IN (`)+tx.params(2, len(chunk))+`)`+lock, args...),
			func(s scanner) error {
				var id string
				var t chat.ConversationTail
				if err := s.Scan(&id, &t.LastSeq, &t.LastSentAt); err != nil {
					return err
				}
				out[id] = t
				return nil
			})
	})
	return out, err
}

// importConversation is what one batch adds to a conversation.
type importConversation struct {
	m                   *chat.Message // its first message in the batch, for the row's parties
	created, updated    int64
	lastID, lastSeq     int64
	readers, deliverees map[string][2]int64 // one-to-one receiver → (id, seq) it read or received up to
}

// InsertImportedMessages inserts messages with their seqs, in the order given, and sets
// their ids; then moves their conversations' rows and the one-to-one receivers' markers,
// and counts the batch on the kept unread counts (chat.ImportTx).
func (tx txStore) InsertImportedMessages(msgs []*chat.Message) error {
	byMUID := make(map[string]*chat.Message, len(msgs))
	for _, m := range msgs {
		byMUID[m.MUID] = m
	}
	err := tx.multiInsert(len(msgs), 20, `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver,
		category, type, data, tags, muid, target_id, sent_at, updated_at, target_uid, seq, parent_id, quoted_id, search_text, delivered_at, read_at)`,
		` RETURNING id, muid`, func(i int) []any {
			m := msgs[i]
			return append(insertMessageArgs(m, m.Seq), m.DeliveredAt, m.ReadAt)
		}, func(q string, args []any) error {
			return each(tx.rowsRaw(q, args...), func(s scanner) error {
				var id int64
				var muid string
				if err := s.Scan(&id, &muid); err != nil {
					return err
				}
				if m := byMUID[muid]; m != nil {
					m.ID = id
				}
				return nil
			})
		})
	if err != nil {
		return err
	}

	// A message quoting one of this batch (Quoted set, QuotedID not yet known when the rows
	// were written) gets its quoted_id now that the batch's ids are.
	for _, m := range msgs {
		if m.QuotedID == 0 && m.Quoted != nil && m.Quoted.ID != 0 {
			m.QuotedID = m.Quoted.ID
			if _, err := tx.exec(`UPDATE messages SET quoted_id = $1 WHERE app_id = $2 AND id = $3`, m.QuotedID, m.AppID, m.ID); err != nil {
				return err
			}
		}
	}

	type mention struct {
		m   *chat.Message
		uid string
		pos int
	}
	var mentions []mention
	for _, m := range msgs {
		for i, e := range m.Mentions {
			mentions = append(mentions, mention{m, e.UID, i})
		}
	}
	err = tx.execMulti(len(mentions), 5, `INSERT INTO message_mentions (app_id, uid, conversation_id, message_id, pos)`, ``, func(i int) []any {
		x := mentions[i]
		return []any{x.m.AppID, x.uid, x.m.ConversationID, x.m.ID, x.pos}
	})
	if err != nil {
		return err
	}

	convs := map[string]*importConversation{}
	var order []string
	for _, m := range msgs {
		c := convs[m.ConversationID]
		if c == nil {
			c = &importConversation{m: m, created: m.SentAt, readers: map[string][2]int64{}, deliverees: map[string][2]int64{}}
			convs[m.ConversationID] = c
			order = append(order, m.ConversationID)
		}
		c.updated = max(c.updated, m.SentAt)
		if m.ID > c.lastID {
			c.lastID, c.lastSeq = m.ID, m.Seq
		}
		if m.ReceiverType == chat.ReceiverUser {
			if m.ReadAt > 0 && m.ID > c.readers[m.Receiver][0] {
				c.readers[m.Receiver] = [2]int64{m.ID, m.Seq}
			}
			if m.DeliveredAt > 0 && m.ID > c.deliverees[m.Receiver][0] {
				c.deliverees[m.Receiver] = [2]int64{m.ID, m.Seq}
			}
		}
	}
	err = tx.execMulti(len(order), 10, `INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, guid, last_seq,
		created_at, updated_at, last_message_id)`, `
		ON CONFLICT (app_id, conversation_id) DO UPDATE SET last_seq = excluded.last_seq,
		updated_at = CASE WHEN excluded.updated_at > conversations.updated_at THEN excluded.updated_at ELSE conversations.updated_at END,
		last_message_id = CASE WHEN excluded.last_message_id > conversations.last_message_id
		THEN excluded.last_message_id ELSE conversations.last_message_id END`, func(i int) []any {
		c := convs[order[i]]
		a := upsertConversationArgs(c.m) // app, conversation, kind, a, b, guid, counted, sentAt
		return []any{a[0], a[1], a[2], a[3], a[4], a[5], c.lastSeq, c.created, c.updated, c.lastID}
	})
	if err != nil {
		return err
	}
	type marker struct {
		uid, conv            string
		readID, readSeq, dID int64
	}
	var markers []marker
	for _, id := range order {
		c := convs[id]
		for _, uid := range sortedKeys(c.readers, c.deliverees) {
			r, d := c.readers[uid], c.deliverees[uid]
			if r[0] > d[0] {
				d = r // reading delivers
			}
			markers = append(markers, marker{uid, id, r[0], r[1], d[0]})
		}
	}
	appID := ""
	if len(msgs) > 0 {
		appID = msgs[0].AppID
	}
	err = tx.execMulti(len(markers), 7, `INSERT INTO conversation_markers (app_id, uid, conversation_id, read_id, read_seq,
		delivered_id, updated_at)`, `
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET
		read_id = CASE WHEN excluded.read_id > conversation_markers.read_id THEN excluded.read_id ELSE conversation_markers.read_id END,
		read_seq = CASE WHEN excluded.read_id > conversation_markers.read_id THEN excluded.read_seq ELSE conversation_markers.read_seq END,
		delivered_id = CASE WHEN excluded.delivered_id > conversation_markers.delivered_id THEN excluded.delivered_id
		ELSE conversation_markers.delivered_id END`, func(i int) []any {
		m := markers[i]
		return []any{appID, m.uid, m.conv, m.readID, m.readSeq, m.dID, convs[m.conv].updated}
	})
	if err != nil {
		return err
	}
	read := map[[2]string]bool{} // the markers a read receipt of the batch moved
	for _, m := range markers {
		if m.readID > 0 {
			read[[2]string{m.uid, m.conv}] = true
		}
	}
	return tx.countImported(msgs, read)
}

// sortedKeys is the keys of both maps, once each, sorted.
func sortedKeys(a, b map[string][2]int64) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// uniqStrings is ids without repeats.
func uniqStrings(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
