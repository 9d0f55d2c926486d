// Package natsql holds what every engine of the bake-off runs: natter's statements (copied
// from sqlstore, with ?N for $N, which SQLite numbers the same) and the process's figures. It
// imports no engine, so the one-engine programs under first/ link only their own.
package natsql

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Cols are the 24 message columns natter's history page reads.
const Cols = `m.id, m.conversation_id, m.sender, m.receiver_type, m.receiver, m.category, m.type,
	m.data, m.tags, m.muid, m.target_id, m.target_uid, m.parent_id, m.reply_count, m.edited_at, m.edited_by, m.delivered_at, m.read_at, m.sent_at, m.updated_at, m.deleted_at, m.deleted_by, m.pinned_at, m.pinned_by`

// History is the history page (the newest 50 of a conversation), Get a message by id.
const (
	History = `SELECT ` + Cols + ` FROM messages m WHERE m.app_id = ?1 AND m.conversation_id = ?2 ORDER BY m.id DESC LIMIT 50`
	Get     = `SELECT ` + Cols + ` FROM messages m WHERE m.app_id = ?1 AND m.id = ?2`
)

// A send of a plain one-to-one message on SQLite is these three statements in one write
// transaction (sqlstore: insertSeqQuery, countConversationQuery, unread.go's countSentQuery).
var (
	InsertSeq = q(`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver,
		category, type, data, tags, muid, target_id, sent_at, updated_at, target_uid, seq, parent_id, quoted_id, search_text)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
		CASE WHEN $15 = 1 THEN COALESCE((SELECT last_seq FROM conversations WHERE app_id = $1 AND conversation_id = $2), 0) + 1 ELSE 0 END, $16, $17, $18)`)
	CountConversation = q(`INSERT INTO conversations (app_id, conversation_id, kind, uid_a, uid_b, guid, last_seq, created_at, updated_at, last_message_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
		ON CONFLICT (app_id, conversation_id) DO UPDATE SET last_seq = conversations.last_seq + excluded.last_seq,
		updated_at = excluded.updated_at, last_message_id = CASE WHEN excluded.last_message_id > conversations.last_message_id
		THEN excluded.last_message_id ELSE conversations.last_message_id END`)
	CountSent = q(`INSERT INTO conversation_markers (app_id, uid, conversation_id, updated_at, unread_own) VALUES ($1, $2, $3, 0, 1)
		ON CONFLICT (app_id, uid, conversation_id) DO UPDATE SET unread_own = conversation_markers.unread_own + 1
		WHERE conversation_markers.read_id < $4`)
)

func q(s string) string { return strings.ReplaceAll(s, "$", "?") }

// Send is one message's values: InsertSeq's eighteen (tags null), then the conversation's
// kind and ordered parties for CountConversation.
type Send struct {
	App, Conv, Sender, Receiver, Data string
	At                                int64
}

// InsertArgs are InsertSeq's arguments (as database/sql takes them).
func (s Send) InsertArgs() []any {
	return []any{s.App, s.Conv, s.Sender, "user", s.Receiver, "message", "text", s.Data, nil,
		"", int64(0), s.At, s.At, "", int64(1), int64(0), int64(0), ""}
}

// ConversationArgs are CountConversation's, with the new message's id.
func (s Send) ConversationArgs(id int64) []any {
	a, b := s.Sender, s.Receiver
	if b < a {
		a, b = b, a
	}
	return []any{s.App, s.Conv, "user", a, b, "", int64(1), s.At, id}
}

// SentArgs are CountSent's.
func (s Send) SentArgs(id int64) []any { return []any{s.App, s.Sender, s.Conv, id} }

// CPU is the process's user and system time so far.
func CPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Memory reports, after a collection, the Go heap in use and what the runtime holds from the
// system, and the process's resident set now and at its peak (kB from /proc/self/status).
// Memory an engine maps outside the Go heap (modernc's libc allocator) shows only in RSS.
func Memory() string {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, hwm := "?", "?"
	if f, err := os.Open("/proc/self/status"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
				rss = strings.Fields(v)[0]
			} else if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				hwm = strings.Fields(v)[0]
			}
		}
		f.Close()
	}
	return fmt.Sprintf("heap_alloc_kb=%d go_sys_kb=%d rss_kb=%s hwm_kb=%s", ms.HeapAlloc>>10, ms.Sys>>10, rss, hwm)
}

// ConversationPage is natter's conversation list page (sqlstore/conversations.go's
// recentPageQuery with its conversationColumns): ?1 app, ?2 viewer, ?3 depth, ?4 page size,
// ?5 offset, ?6 1 to include blocked users' conversations.
var ConversationPage = q(`SELECT c.conversation_id, c.kind, c.uid_a, c.uid_b, c.guid, c.last_message_id, c.last_seq,
	c.created_at, c.updated_at,
	COALESCE(k.read_id, 0), COALESCE(k.read_seq, 0), COALESCE(k.delivered_id, 0), COALESCE(k.reset_id, 0), k.tags,
	COALESCE(k.updated_at, 0), COALESCE(k.pinned_at, 0),
	COALESCE((SELECT sp.pinned_at FROM system_pinned_conversations sp WHERE sp.app_id = c.app_id AND sp.kind = c.kind
		AND ((c.kind = 'group' AND sp.target = c.guid) OR (c.kind = 'user' AND sp.target IN (c.uid_a, c.uid_b) AND sp.target <> $2))
		ORDER BY sp.position LIMIT 1), 0),
	CASE WHEN c.purged_seq > COALESCE(k.read_seq, 0) THEN c.last_seq - COALESCE(k.read_seq, 0)
		- (SELECT COUNT(*) FROM messages o WHERE o.app_id = c.app_id AND o.conversation_id = c.conversation_id
			AND o.id > COALESCE(k.read_id, 0) AND o.seq > 0 AND o.sender <> $2)
		ELSE COALESCE(k.unread_own, 0) END, COALESCE(k.unread_mentions, 0) FROM (
		SELECT conversation_id FROM (SELECT conversation_id FROM conversations WHERE app_id = $1 AND kind = 'user' AND uid_a = $2
			ORDER BY last_message_id DESC LIMIT $3) a
		UNION SELECT conversation_id FROM (SELECT conversation_id FROM conversations WHERE app_id = $1 AND kind = 'user' AND uid_b = $2
			ORDER BY last_message_id DESC LIMIT $3) b
		UNION SELECT conversation_id FROM (SELECT c2.conversation_id FROM group_members gm
			JOIN conversations c2 ON c2.app_id = gm.app_id AND c2.conversation_id = 'group_' || gm.guid
			WHERE gm.app_id = $1 AND gm.uid = $2 ORDER BY c2.last_message_id DESC LIMIT $3) g) mine
		CROSS JOIN conversations c
		LEFT JOIN conversation_markers k ON k.app_id = c.app_id AND k.uid = $2 AND k.conversation_id = c.conversation_id
		WHERE c.app_id = $1 AND c.conversation_id = mine.conversation_id AND c.last_message_id > COALESCE(k.reset_id, 0)
		AND ($6 = 1 OR (c.kind <> 'user' OR NOT EXISTS (SELECT 1 FROM blocks b WHERE b.app_id = c.app_id AND b.uid = $2
	AND b.blocked_uid = (CASE WHEN c.uid_a = $2 THEN c.uid_b ELSE c.uid_a END))))
		ORDER BY c.last_message_id DESC LIMIT $4 OFFSET $5`)

// ConversationCols is how many columns ConversationPage answers.
const ConversationCols = 19
