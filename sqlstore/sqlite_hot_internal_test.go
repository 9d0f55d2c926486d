package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestHotCacheForgetsRollback: a batch that rolls back empties the writer's cache, so that
// nothing it learnt from the rolled-back transaction outlives it.
func TestHotCacheForgetsRollback(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "h.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"u0", "u1"} {
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: uid, Name: uid, Role: "default", Status: "offline"}); err != nil {
			t.Fatal(err)
		}
	}
	m := &chat.Message{AppID: "a", ConversationID: "u0_user_u1", Sender: "u0", Receiver: "u1", ReceiverType: "user",
		Category: "message", Type: "text", Data: []byte(`{}`)}
	if err := db.CreateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: "u0", Reaction: "x", Add: true}); err != nil {
		t.Fatal(err)
	}
	if db.eng.(*sqliteEngine).hot.get("a", m.ID) == nil {
		t.Fatal("a reaction left its message out of the cache")
	}
	if db.eng.(*sqliteEngine).hot.get("b", m.ID) != nil {
		t.Fatal("the cache answered for another app")
	}
	boom := errors.New("boom")
	if err := db.eng.(*sqliteEngine).batch.Do(ctx, func(*sql.Tx) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failing job: %v", err)
	}
	if len(db.eng.(*sqliteEngine).hot.m) != 0 {
		t.Fatalf("after a rollback the cache still holds %d messages", len(db.eng.(*sqliteEngine).hot.m))
	}
}

// TestHotCacheOutlivesUsageSaves: saving usage figures, which a node does every few
// seconds, writes nothing the message cache holds and leaves it warm.
func TestHotCacheOutlivesUsageSaves(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "h.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateApp(ctx, chat.App{ID: "a", Region: "us", Name: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"u0", "u1"} {
		if err := db.CreateUser(ctx, chat.User{AppID: "a", UID: uid, Name: uid, Role: "default", Status: "offline"}); err != nil {
			t.Fatal(err)
		}
	}
	m := &chat.Message{AppID: "a", ConversationID: "u0_user_u1", Sender: "u0", Receiver: "u1", ReceiverType: "user",
		Category: "message", Type: "text", Data: []byte(`{}`)}
	if err := db.CreateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: m.ID, UID: "u0", Reaction: "x", Add: true}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveUsage(ctx, chat.UsageBatch{Node: "n", Seq: 1, Counts: []chat.UsageCount{{AppID: "a", Bucket: 300, Messages: 1}},
		Active: []chat.UsageActive{{AppID: "a", UID: "u0", Day: 0, Bits: [5]int64{1}, NewDay: true, MonthDay: 1}}}); err != nil {
		t.Fatal(err)
	}
	if db.eng.(*sqliteEngine).hot.get("a", m.ID) == nil {
		t.Fatal("saving usage emptied the message cache")
	}
}
