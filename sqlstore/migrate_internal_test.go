package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/natter-chat/natter/chat"
)

// TestMigrateCountsKeepsData: a SQLite file made by the first schema, with reactions in it,
// opens under the current one with its counts, their order and its rows intact, and takes
// further changes.
func TestMigrateCountsKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := migrations.ReadFile("migrations/sqlite/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{string(schema),
		`CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
		`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', 0)`,
		`INSERT INTO apps VALUES ('a', 'us', 'a', 0)`,
		`INSERT INTO users (app_id, uid, name, created_at) VALUES ('a', 'u0', 'u0', 0), ('a', 'u1', 'u1', 0)`,
		`INSERT INTO users (app_id, uid, name, role, created_at) VALUES ('a', 'u2', 'u2', 'vip', 7), ('a', 'u3', 'u3', 'vip', 5)`,
		`INSERT INTO messages (id, app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at)
			VALUES (7, 'a', 'u0_user_u1', 'u0', 'user', 'u1', 'message', 'text', '{}', 0, 0)`,
		`INSERT INTO reactions (id, app_id, message_id, uid, reaction, reacted_at) VALUES
			(10, 'a', 7, 'u1', 'b', 0), (11, 'a', 7, 'u0', 'a', 0), (12, 'a', 7, 'u1', 'a', 0)`,
		`INSERT INTO reaction_counts (message_id, first_id, reaction, count, first_at) VALUES (7, 10, 'b', 1, 0), (7, 11, 'a', 2, 0)`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	old.Close()

	db, err := Open(ctx, "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := []chat.ReactionSummary{{Reaction: "b", Count: 1, ReactedByMe: true}, {Reaction: "a", Count: 2, ReactedByMe: true}}
	m, err := db.Message(ctx, "a", 7, "u1")
	if err != nil || len(m.Reactions) != 2 || m.Reactions[0] != want[0] || m.Reactions[1] != want[1] {
		t.Fatalf("after migrating: %+v, %v", m.Reactions, err)
	}
	m, err = db.ChangeReaction(ctx, chat.ReactionChange{AppID: "a", MessageID: 7, UID: "u0", Reaction: "b", Add: true})
	if err != nil || len(m.Reactions) != 2 || m.Reactions[0].Count != 2 || !m.Reactions[0].ReactedByMe {
		t.Fatalf("a reaction after migrating: %+v, %v", m.Reactions, err)
	}
	// The app got its default role, and a role for the role its users had.
	roles, total, err := db.ListRoles(ctx, "a", chat.Page{Number: 1, PerPage: 10})
	if err != nil || total != 2 || roles[0].Role != "vip" || roles[0].CreatedAt != 5 || roles[1].Role != "default" || roles[1].Name != chat.DefaultRoleName {
		t.Fatalf("roles after migrating: %+v, %d, %v", roles, total, err)
	}
}
