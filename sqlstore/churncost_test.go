package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestConversationPageAfterChurn: the page costs the same pages after 30,000 messages into
// one of the viewer's conversations (3,000 on SQLite) as before them. u00000 is uid_a of 1,000 conversations
// and uid_b of one, with a0; every message into that one moved its row in the uid_b
// activity index, and PostgreSQL keeps each old entry, dead, until vacuum (off here, as
// between two of its runs). Asked for a page's 50 rows, the uid_b side had one live entry
// and walked every dead one after it: 1.2 ms and 220 buffers a page on issue 39's hub. The
// counts below are pages (buffers on PostgreSQL), which count the dead entries a scan
// steps over, where rows scanned do not: 264 pages more after the churn before the fix, none
// after it. The slack is for the primary key's dead versions of the churned row, which the
// join to it may step over until PostgreSQL's bottom-up deletion clears them (40 pages more
// in a run at 10,000 messages, none at 30,000).
func TestConversationPageAfterChurn(t *testing.T) {
	costBackends(t, func(t *testing.T, backend string) {
		s := openCostStore(t, backend)
		ctx := context.Background()
		seedUnread(t, s, 0, 0)
		if backend == "postgres" {
			s.exec(t, `ALTER TABLE conversations SET (autovacuum_enabled = off)`)
		}
		app := chat.Principal{App: chat.App{ID: "a"}}
		if _, err := s.svc.CreateUser(ctx, app, chat.UserCreate{UID: "a0", Name: "a0"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.SendMessage(ctx, app.ActingAs("a0"), chat.MessageSend{Receiver: "u00000", ReceiverType: chat.ReceiverUser,
			Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"first"}`)}); err != nil {
			t.Fatal(err)
		}
		var conv string
		var first int64
		if err := s.raw.QueryRow(`SELECT conversation_id, last_message_id FROM conversations WHERE uid_a = 'a0'`).Scan(&conv, &first); err != nil {
			t.Fatal(err)
		}
		// The messages the churn will make the conversation's last, one by one. SQLite
		// rewrites its B-trees in place and leaves no dead entry to walk: 3,000 show that
		// much (30,000 took a minute of CI under -race).
		churn := 30_000
		if backend == "sqlite" {
			churn = 3_000
		}
		s.exec(t, fmt.Sprintf(`INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, seq)
			SELECT 'a', '%s', 'a0', 'user', 'u00000', 'message', 'text', '{"text":"more"}', 2000000 + i, 2000000 + i, 1 + i FROM (%s) AS n`, conv, s.series(churn)))
		page := func() error {
			cs, _, err := s.svc.ListConversations(ctx, app.ActingAs("u00000"), chat.ConversationQuery{Page: chat.Page{Number: 1, PerPage: 50}})
			if err == nil && (len(cs) != 50 || cs[0].ID != conv) {
				err = fmt.Errorf("%d conversations, the first %s; want 50, the first %s", len(cs), cs[0].ID, conv)
			}
			return err
		}
		before := s.measure(t, page)
		// One update a message, as sends make them (each its own transaction).
		rows, err := s.raw.Query(`SELECT id FROM messages WHERE app_id = 'a' AND conversation_id = '` + conv + `' AND id > ` + fmt.Sprint(first) + ` ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		if len(ids) != churn {
			t.Fatalf("%d messages to churn through, want %d", len(ids), churn)
		}
		update := map[string]string{"sqlite": `UPDATE conversations SET last_message_id = ?, updated_at = ? WHERE app_id = 'a' AND conversation_id = ?`,
			"postgres": `UPDATE conversations SET last_message_id = $1, updated_at = $2 WHERE app_id = 'a' AND conversation_id = $3`}[backend]
		for _, id := range ids {
			if _, err := s.raw.Exec(update, id, id, conv); err != nil {
				t.Fatal(err)
			}
		}
		after := s.measure(t, page)
		t.Logf("before %+v, after %+v", before, after)
		if after.Statements != before.Statements || after.Rows != before.Rows {
			t.Errorf("%d statements reading %d rows after the churn, %d reading %d before", after.Statements, after.Rows, before.Statements, before.Rows)
		}
		if after.Pages > before.Pages+100 {
			t.Errorf("the page touched %d pages after %d messages into one conversation, %d before: it walks the index's dead entries",
				after.Pages, churn, before.Pages)
		}
	})
}
