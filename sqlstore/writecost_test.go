package sqlstore_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestWriteStatements counts the statements a one-to-one send, a new reaction and a read
// receipt run through the store's runners on SQLite (issue 29: a write pays once), with the
// users' and the app's caches warm, as on a serving node. PostgreSQL's send and reaction go
// through the engine's own pipelined statements, which the counter does not see. The
// figures are the ceiling: a change that adds a statement to a hot write fails here, and
// one that removes some lowers the ceiling.
func TestWriteStatements(t *testing.T) {
	s := openCostStore(t, "sqlite")
	ctx := context.Background()
	app := chat.Principal{App: chat.App{ID: "a"}}
	for _, u := range []string{"u0", "u1"} {
		if _, err := s.svc.CreateUser(ctx, app, chat.UserCreate{UID: u, Name: u}); err != nil {
			t.Fatal(err)
		}
	}
	send := func() (chat.Message, error) {
		return s.svc.SendMessage(ctx, app.ActingAs("u0"), chat.MessageSend{Receiver: "u1", ReceiverType: chat.ReceiverUser,
			Category: chat.CategoryMessage, Type: "text", Data: []byte(`{"text":"hello"}`)})
	}
	m, err := send() // warms the caches
	if err != nil {
		t.Fatal(err)
	}
	counted := func(op func() error) (statements, rows int64) {
		t.Helper()
		s.count.Reset()
		if err := op(); err != nil {
			t.Fatal(err)
		}
		if testing.Verbose() {
			for _, st := range s.count.All() {
				t.Logf("  read %-5v %.100s", st.Read, strings.Join(strings.Fields(st.Query), " "))
			}
		}
		return s.count.Statements(), s.count.Rows()
	}
	got := map[string][2]int64{}
	st, rows := counted(func() error { _, err := send(); return err })
	got["send"] = [2]int64{st, rows}
	id := strconv.FormatInt(m.ID, 10)
	if _, err := s.svc.AddReaction(ctx, app.ActingAs("u1"), id, "👍"); err != nil {
		t.Fatal(err)
	}
	st, rows = counted(func() error { _, err := s.svc.AddReaction(ctx, app.ActingAs("u1"), id, "🔥"); return err })
	got["reaction"] = [2]int64{st, rows}
	st, rows = counted(func() error {
		return s.svc.Mark(ctx, app.ActingAs("u1"), chat.ConversationUser, "u0", chat.MarkRead, 0)
	})
	got["receipt"] = [2]int64{st, rows}
	// The counts on 2026-11-27, statements and rows read back: with the entity cache
	// (chat/entitycache.go) a send no longer reads its two users and their blocks (5 → 2),
	// nor a receipt its users (8 → 6). Issue 39: a send counts itself on its sender's kept
	// unread count (2 → 3; one more per user it mentions), which spares every conversation
	// list the count of the sender's messages after its read marker.
	ceiling := map[string]int64{"send": 3, "reaction": 2, "receipt": 6}
	for op, c := range got {
		t.Logf("%s: %d statements, %d rows read back", op, c[0], c[1])
		if c[0] > ceiling[op] {
			t.Errorf("%s ran %d statements, more than the %d it ran before", op, c[0], ceiling[op])
		}
	}
}
