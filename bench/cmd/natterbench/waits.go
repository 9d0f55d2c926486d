package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// waitSampler samples what natter's PostgreSQL backends are doing while a scenario runs
// (-postgres only): every waitEvery, the active backends of natter's database by wait event
// (or "running" for none). Issue 39's conversation page once fell to 2-3 requests/s on
// PostgreSQL in three runs of four and was never seen again; whether such a run waits on
// locks, on I/O or on nothing (a plan that walks) is in pg_stat_activity while it happens,
// so every -postgres run now keeps it.
type waitSampler struct {
	conn    *pgx.Conn
	samples int
	active  int            // active backends summed over the samples
	events  map[string]int // backend-samples by wait event
	done    chan struct{}
	cancel  context.CancelFunc
}

const waitEvery = 250 * time.Millisecond

const waitQuery = `SELECT COALESCE(wait_event_type || ':' || wait_event, 'running'), count(*) FROM pg_stat_activity
	WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1`

// startWaits starts sampling natter's database at url; nil when it cannot connect (the run
// goes on without it).
func startWaits(ctx context.Context, url string) *waitSampler {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		logf("wait sampling off: %v", err)
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &waitSampler{conn: conn, events: map[string]int{}, done: make(chan struct{}), cancel: cancel}
	db := conn.Config().Database
	go func() {
		defer close(w.done)
		t := time.NewTicker(waitEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rows, err := conn.Query(ctx, waitQuery, db)
			if err != nil {
				return
			}
			w.samples++
			for rows.Next() {
				var ev string
				var n int
				if rows.Scan(&ev, &n) == nil {
					w.events[ev] += n
					w.active += n
				}
			}
			rows.Close()
		}
	}()
	return w
}

// stop ends the sampling and returns its note for the scenario.
func (w *waitSampler) stop(name string) string {
	if w == nil {
		return ""
	}
	w.cancel()
	<-w.done
	w.conn.Close(context.Background())
	if w.samples == 0 {
		return ""
	}
	type ev struct {
		name string
		n    int
	}
	var evs []ev
	for k, n := range w.events {
		evs = append(evs, ev{k, n})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].n > evs[j].n || evs[i].n == evs[j].n && evs[i].name < evs[j].name })
	var parts []string
	for i, e := range evs {
		if i == 5 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", e.name, 100*float64(e.n)/float64(max(w.active, 1))))
	}
	if len(parts) == 0 {
		parts = append(parts, "none active")
	}
	return fmt.Sprintf("%s: natter's PostgreSQL backends, sampled every %v (warmup included): %.1f active on average; %s.",
		name, waitEvery, float64(w.active)/float64(w.samples), strings.Join(parts, ", "))
}
