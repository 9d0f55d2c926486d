package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// TestScaleOut runs two natter nodes on one PostgreSQL database and checks that the
// database, not a node, is where concurrent writes meet: first start, the reaction rules
// under concurrency from both nodes, and API key revocation across nodes.
func TestScaleOut(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	dbURL := pgtest.URL(t)
	db := openDB(t, dbURL)
	hc, _ := newHTTPClient(t)
	ctx := context.Background()
	key := randomKey()
	const ttl = 3 * time.Second

	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--database", dbURL,
		"--key-cache-ttl", ttl.String(), "--access-log=false"}

	// Both nodes start at the same moment on the empty database: both migrate (the advisory
	// lock serialises them) and both look for an app to create.
	nodes := []*natterProc{newNatter(t, "node A", env, args...), newNatter(t, "node B", env, args...)}
	startErrs := make([]error, len(nodes))
	burst(len(nodes), func(i int) { startErrs[i] = nodes[i].start() })
	var wg sync.WaitGroup
	for i, n := range nodes {
		if startErrs[i] != nil {
			t.Fatalf("start %s: %v", n.name, startErrs[i])
		}
		wg.Add(1)
		go func() { defer wg.Done(); startErrs[i] = n.waitReady(60 * time.Second) }()
	}
	wg.Wait()
	for i, err := range startErrs {
		if err == nil {
			continue
		}
		t.Errorf("simultaneous first start: %v", err)
		// Start it again on the now initialised database, so that the rest still runs.
		nodes[i] = startNatter(t, nodes[i].name+" (restarted)", env, args...)
	}
	// A node's standard output reaches the test through a pipe copied by exec's goroutine,
	// which may lag behind the node being ready: wait for it to settle.
	countCreators := func() int {
		n := 0
		for _, p := range nodes {
			if strings.Contains(p.stdoutText(), "created the first app") {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(30 * time.Second); countCreators() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	created := countCreators()
	for _, n := range nodes {
		if strings.Contains(n.stdoutText(), "created the first app") {
			t.Logf("%s created the first app", n.name)
		}
	}
	if created != 1 {
		t.Errorf("%d nodes report creating the first app, want exactly 1", created)
	}

	t.Run("schema migrated once", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join("..", "sqlstore", "migrations", "postgres", "*.sql"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no migration files found (%v)", err)
		}
		rows, err := db.Query(`SELECT version, COUNT(*) FROM schema_migrations GROUP BY version ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		versions := 0
		for rows.Next() {
			var v, n int
			if err := rows.Scan(&v, &n); err != nil {
				t.Fatal(err)
			}
			versions++
			if n != 1 {
				t.Errorf("schema_migrations has %d rows for version %d, want 1", n, v)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		var total int
		if err := db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&total); err != nil {
			t.Fatal(err)
		}
		if versions != len(files) || total != len(files) {
			t.Errorf("schema_migrations: %d rows, %d versions; want one per migration file (%d)", total, versions, len(files))
		}
	})

	if !t.Run("one app, key works on both nodes", func(t *testing.T) {
		var apps int
		if err := db.QueryRow(`SELECT COUNT(*) FROM apps`).Scan(&apps); err != nil {
			t.Fatal(err)
		}
		if apps != 1 {
			t.Errorf("%d apps in the database, want exactly 1", apps)
		}
		for _, n := range nodes {
			if _, err := client.New(n.base(), key, client.WithHTTPClient(hc)).ListUsers(ctx, client.ListUsersParams{PerPage: 1}); err != nil {
				t.Errorf("%s: NATTER_API_KEY does not work: %v", n.name, err)
			}
		}
	}) {
		t.FailNow()
	}

	cs := []*client.Client{
		client.New(nodes[0].base(), key, client.WithHTTPClient(hc)),
		client.New(nodes[1].base(), key, client.WithHTTPClient(hc)),
	}

	// 200 users, created through both nodes.
	const nUsers = 200
	uid := func(i int) string { return fmt.Sprintf("user%d", i) }
	var mu sync.Mutex
	var userErrs []string
	t0 := time.Now()
	bounded(nUsers, 16, func(i int) {
		_, err := cs[i%2].CreateUser(ctx, client.CreateUserRequest{UID: uid(i), Name: "User " + fmt.Sprint(i)})
		if err != nil {
			mu.Lock()
			userErrs = append(userErrs, fmt.Sprintf("%s: %v", uid(i), err))
			mu.Unlock()
		}
	})
	if len(userErrs) > 0 {
		t.Fatalf("creating %d users: %d failed, e.g. %s", nUsers, len(userErrs), userErrs[0])
	}
	for _, c := range cs {
		l, err := c.ListUsers(ctx, client.ListUsersParams{PerPage: 1})
		if err != nil {
			t.Fatal(err)
		}
		if l.Pagination.Total != nUsers {
			t.Errorf("GET /users total = %d, want %d", l.Pagination.Total, nUsers)
		}
	}
	t.Logf("created %d users through both nodes in %v", nUsers, time.Since(t0).Round(time.Millisecond))

	// Only the sender and the receiver of a one-to-one message may react to it.
	participants := []string{uid(0), uid(1)}

	t.Run("same reaction from both participants via both nodes", func(t *testing.T) {
		msg := seedMessage(t, cs[0], uid(0), uid(1))
		const n, reaction = 200, "👍"
		errs := make([]error, n)
		resp := make([]*client.Message, n)
		burst(n, func(i int) {
			resp[i], errs[i] = cs[i%2].OnBehalfOf(participants[(i/2)%2]).AddReaction(ctx, msg.ID, reaction)
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("request %d (%s via node %d): %v", i, participants[(i/2)%2], i%2, err)
				continue
			}
			var found bool
			for _, s := range resp[i].Data.Reactions {
				if s.Reaction == reaction {
					found = true
					if !s.ReactedByMe || s.Count < 1 || s.Count > 2 {
						t.Errorf("request %d: summary %+v, want reactedByMe and a count of 1 or 2", i, s)
					}
				}
			}
			if !found {
				t.Errorf("request %d: %q missing from the summary %+v", i, reaction, resp[i].Data.Reactions)
			}
		}
		for ni, c := range cs {
			for _, who := range append([]string{""}, participants...) {
				m, err := c.OnBehalfOf(who).GetMessage(ctx, msg.ID)
				if err != nil {
					t.Fatalf("node %d, onBehalfOf %q: %v", ni, who, err)
				}
				want := []client.ReactionSummary{{Reaction: reaction, Count: 2, ReactedByMe: who != ""}}
				if got := m.Data.Reactions; len(got) != 1 || got[0] != want[0] {
					t.Errorf("node %d, onBehalfOf %q: reactions %+v, want %+v", ni, who, got, want)
				}
			}
		}
		counts := checkCountsMatchRows(t, db, msg.ID)
		if len(counts) != 1 || counts[reaction] != 2 {
			t.Errorf("reaction_counts %v, want {%s: 2}", counts, reaction)
		}
	})

	t.Run("distinct reaction cap across nodes", func(t *testing.T) {
		msg := seedMessage(t, cs[0], uid(0), uid(1))
		const n, kinds, limit = 200, 60, 50 // limit is natter's default --max-reactions
		reaction := func(i int) string { return fmt.Sprintf("r%02d", i%kinds) }
		status := make([]int, n)
		codes := make([]string, n)
		burst(n, func(i int) {
			_, err := cs[(i/3)%2].OnBehalfOf(participants[(i/kinds)%2]).AddReaction(ctx, msg.ID, reaction(i))
			status[i], codes[i] = apiErr(err)
		})
		ok, limited := map[string]int{}, map[string]int{}
		other := 0
		for i := range n {
			switch {
			case status[i] == 200:
				ok[reaction(i)]++
			case status[i] == 400 && codes[i] == "ERR_REACTION_LIMIT_EXCEEDED":
				limited[reaction(i)]++
			default:
				other++
				t.Errorf("request %d (%s): HTTP %d %s, want 200 or 400 ERR_REACTION_LIMIT_EXCEEDED", i, reaction(i), status[i], codes[i])
			}
		}
		for r := range limited {
			if ok[r] > 0 {
				// The set of reactions only grows here, so one refused is refused every time.
				t.Errorf("reaction %q was both accepted (%d) and refused as over the cap (%d)", r, ok[r], limited[r])
			}
		}
		if len(ok) != limit || len(limited) != kinds-limit {
			t.Errorf("%d reactions accepted and %d refused, want %d and %d", len(ok), len(limited), limit, kinds-limit)
		}
		counts := checkCountsMatchRows(t, db, msg.ID)
		if len(counts) != limit {
			t.Errorf("reaction_counts has %d rows for the message, want %d", len(counts), limit)
		}
		for r := range ok {
			if counts[r] == 0 {
				t.Errorf("reaction %q was acknowledged but has no count", r)
			}
		}
		m, err := cs[1].GetMessage(ctx, msg.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := summaryMap(t, m); len(got) != limit {
			t.Errorf("the summary lists %d reactions, want %d", len(got), limit)
		}
		t.Logf("%d requests: %d accepted for %d reactions, %d refused for %d reactions, %d other",
			n, sum(ok), len(ok), sum(limited), len(limited), other)
	})

	t.Run("idempotent add across nodes", func(t *testing.T) {
		msg := seedMessage(t, cs[0], uid(0), uid(1))
		const n, reaction = 40, "same"
		errs := make([]error, n)
		burst(n, func(i int) {
			_, errs[i] = cs[i%2].OnBehalfOf(uid(0)).AddReaction(ctx, msg.ID, reaction)
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("request %d via node %d: %v", i, i%2, err)
			}
		}
		var rows int
		if err := db.QueryRow(`SELECT COUNT(*) FROM reactions WHERE message_id = $1::bigint AND uid = $2 AND reaction = $3`,
			msg.ID, uid(0), reaction).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != 1 {
			t.Errorf("%d rows for (%s, %s), want 1", rows, uid(0), reaction)
		}
		if counts := checkCountsMatchRows(t, db, msg.ID); len(counts) != 1 || counts[reaction] != 1 {
			t.Errorf("reaction_counts %v, want {%s: 1}", counts, reaction)
		}
	})

	t.Run("add and remove churn across nodes", func(t *testing.T) {
		msg := seedMessage(t, cs[0], uid(0), uid(1))
		const n = 200
		reactions := []string{"a", "b", "c", "d", "e"}
		rng := rand.New(rand.NewPCG(1, 2))
		add := make([]bool, n)
		for i := range add {
			add[i] = rng.IntN(10) < 6
		}
		errs := make([]error, n)
		burst(n, func(i int) {
			c := cs[i%2].OnBehalfOf(participants[(i/2)%2])
			r := reactions[(i/4)%len(reactions)]
			if add[i] {
				_, errs[i] = c.AddReaction(ctx, msg.ID, r)
			} else {
				_, errs[i] = c.RemoveReaction(ctx, msg.ID, r)
			}
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("request %d (add=%v): %v", i, add[i], err)
			}
		}
		counts := checkCountsMatchRows(t, db, msg.ID)
		for r, c := range counts {
			if c <= 0 || c > 2 {
				t.Errorf("reaction %q: count %d, want 1 or 2 (two participants)", r, c)
			}
		}
		for ni, c := range cs {
			m, err := c.GetMessage(ctx, msg.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := summaryMap(t, m); !sameCounts(got, counts) {
				t.Errorf("node %d: summary %v, database %v", ni, got, counts)
			}
		}
		t.Logf("after %d adds/removes: %v", n, counts)
	})

	t.Run("deleted key stops working on the other node within the cache TTL", func(t *testing.T) {
		nk, err := cs[0].CreateAPIKey(ctx, "e2e revoke", "fullAccess")
		if err != nil {
			t.Fatal(err)
		}
		onA := client.New(nodes[0].base(), nk.APIKey, client.WithHTTPClient(hc))
		onB := client.New(nodes[1].base(), nk.APIKey, client.WithHTTPClient(hc))
		if _, err := onB.ListUsers(ctx, client.ListUsersParams{PerPage: 1}); err != nil {
			t.Fatalf("the new key on node B: %v", err)
		}
		cachedAt := time.Now() // node B has now cached the key
		if _, err := cs[0].DeleteAPIKey(ctx, nk.APIKey); err != nil {
			t.Fatalf("delete the key via node A: %v", err)
		}
		deleted := time.Now()
		if s, code := apiErr(listOne(ctx, onA)); s != 401 || code != "AUTH_ERR_APIKEY_NOT_FOUND" {
			t.Errorf("node A right after deleting: HTTP %d %s, want 401 AUTH_ERR_APIKEY_NOT_FOUND", s, code)
		}
		deadline := deleted.Add(ttl + time.Second)
		polls := 0
		for {
			polls++
			s, code := apiErr(listOne(ctx, onB))
			if s == 401 && code == "AUTH_ERR_APIKEY_NOT_FOUND" {
				t.Logf("REPORT key revocation: node B refused the deleted key %v after the delete via node A (%v after B cached it; TTL %v, %d polls)",
					time.Since(deleted).Round(time.Millisecond), time.Since(cachedAt).Round(time.Millisecond), ttl, polls)
				break
			}
			if s != 200 {
				t.Fatalf("node B, %v after the delete: HTTP %d %s, want 200 (cached) or 401 AUTH_ERR_APIKEY_NOT_FOUND", time.Since(deleted), s, code)
			}
			if time.Now().After(deadline) {
				t.Fatalf("node B still accepts the key %v after it was deleted via node A; the key cache TTL is %v", time.Since(deleted).Round(time.Millisecond), ttl)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	for _, n := range nodes {
		if !n.alive() {
			t.Errorf("%s exited: %v", n.name, n.waitErr)
		}
	}
}

func listOne(ctx context.Context, c *client.Client) error {
	_, err := c.ListUsers(ctx, client.ListUsersParams{PerPage: 1})
	return err
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sameCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
