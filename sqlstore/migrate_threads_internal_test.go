package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/pgtest"
)

// TestMigrateThreads: migration 0040 numbers the replies sent before it in their threads,
// gives each parent its last reply, and makes each thread's author and repliers follow it,
// as replies sent after it do.
func TestMigrateThreads(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			driver, dsn, url := "pgx", "", ""
			if dialect == "sqlite" {
				p := filepath.Join(t.TempDir(), "old.db")
				driver, dsn, url = "sqlite", "file:"+p+"?_pragma=foreign_keys(1)", "sqlite:"+p
			} else {
				url = pgtest.URL(t)
				dsn = url
			}
			old, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			old.SetMaxOpenConns(1)
			files, _ := fs.Glob(migrations, "migrations/"+dialect+"/*.sql")
			sort.Strings(files)
			stmts := []string{`CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`}
			for _, f := range files {
				name := path.Base(f)
				v, _ := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
				if v >= 40 {
					break
				}
				body, _ := migrations.ReadFile(f)
				stmts = append(stmts, string(body), `INSERT INTO schema_migrations VALUES (`+strconv.Itoa(v)+`, '`+name+`', 0)`)
			}
			msg := func(sender, to, typ string, parent, sentAt int) string {
				conv := "g_group"
				if typ == "user" {
					conv = "u0_user_u1"
				}
				return `INSERT INTO messages (app_id, conversation_id, sender, receiver_type, receiver, category, type, data, sent_at, updated_at, parent_id)
					VALUES ('a', '` + conv + `', '` + sender + `', '` + typ + `', '` + to + `', 'message', 'text', '{}', ` + strconv.Itoa(sentAt) + `, 0, ` + strconv.Itoa(parent) + `)`
			}
			stmts = append(stmts, `INSERT INTO apps (id, region, name, created_at) VALUES ('a', 'us', 'a', 0)`,
				msg("u0", "u1", "user", 0, 1), // 1: a parent
				msg("u1", "u0", "user", 1, 2), // 2
				msg("u2", "g", "group", 0, 3), // 3: a group parent
				msg("u1", "u0", "user", 1, 4), // 4
				msg("u3", "g", "group", 3, 5), // 5
				msg("u0", "u1", "user", 0, 6), // 6: no replies
				`UPDATE messages SET reply_count = 2 WHERE id = 1`, `UPDATE messages SET reply_count = 1 WHERE id = 3`)
			for _, s := range stmts {
				if _, err := old.ExecContext(ctx, s); err != nil {
					t.Fatalf("%.80s: %v", s, err)
				}
			}
			db, err := Open(ctx, url, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			got := func(query string) string {
				rows, err := old.QueryContext(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var out []string
				for rows.Next() {
					var a, b, c string
					if err := rows.Scan(&a, &b, &c); err != nil {
						t.Fatal(err)
					}
					out = append(out, a+" "+b+" "+c)
				}
				return strings.Join(out, ", ")
			}
			if s := got(`SELECT id, thread_seq, last_reply_id FROM messages ORDER BY id`); s != "1 0 4, 2 1 0, 3 0 5, 4 2 0, 5 1 0, 6 0 0" {
				t.Errorf("messages (id, thread_seq, last_reply_id): %s", s)
			}
			if s := got(`SELECT parent_id, uid, guid || ':' || subscribed || ':' || updated_at FROM thread_subscriptions ORDER BY parent_id, uid`); s !=
				"1 u0 :1:4, 1 u1 :1:4, 3 u2 g:1:5, 3 u3 g:1:5" {
				t.Errorf("thread_subscriptions: %s", s)
			}
		})
	}
}
