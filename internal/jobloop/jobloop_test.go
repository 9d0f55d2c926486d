package jobloop

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// queue is a job source: Claim takes at most limit of the jobs added so far.
type queue struct {
	mu   sync.Mutex
	jobs []int
}

func (q *queue) add(n ...int) {
	q.mu.Lock()
	q.jobs = append(q.jobs, n...)
	q.mu.Unlock()
}

func (q *queue) claim(_ context.Context, limit int, _ []struct{}) ([]int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(limit, len(q.jobs))
	out := q.jobs[:n:n]
	q.jobs = q.jobs[n:]
	return out, true
}

// TestLoop: every job runs once, never more than Workers at a time; a Wake is heard
// without waiting for the poll; Run returns only after the jobs in flight.
func TestLoop(t *testing.T) {
	var q queue
	q.add(1, 2, 3, 4, 5, 6, 7)
	var running, most, done atomic.Int64
	release := make(chan struct{})
	seen := make(chan int, 100)
	l := New[int, struct{}](3, time.Hour) // the poll never fires: only Wake and freed slots drive it
	l.Claim = q.claim
	l.Do = func(ctx context.Context, job int) struct{} {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		running.Add(-1)
		done.Add(1)
		seen <- job
		return struct{}{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { l.Run(ctx); close(stopped) }()

	for running.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // room for a fourth to start, if the loop were wrong
	for range 7 {
		release <- struct{}{}
	}
	got := map[int]bool{}
	for range 7 {
		got[<-seen] = true
	}
	if len(got) != 7 || most.Load() != 3 {
		t.Fatalf("ran %v, at most %d at once; want 7 jobs, 3 at once", got, most.Load())
	}

	q.add(8)
	l.Wake()
	select {
	case release <- struct{}{}: // job 8 is running
	case <-time.After(10 * time.Second):
		t.Fatal("a Wake did not start the job added")
	}
	if j := <-seen; j != 8 {
		t.Fatalf("ran job %d, want 8", j)
	}

	q.add(9)
	l.Wake()
	for running.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-stopped:
		t.Fatal("Run returned with a job in flight")
	case <-time.After(50 * time.Millisecond):
	}
	release <- struct{}{}
	<-stopped
	if done.Load() != 9 {
		t.Fatalf("%d jobs done, want 9", done.Load())
	}
}

// TestRoundBusy: a busy round asks for another at once, and the loop sleeps once it is not.
func TestRoundBusy(t *testing.T) {
	var rounds atomic.Int64
	l := New[int, struct{}](1, time.Hour)
	l.Claim = func(context.Context, int, []struct{}) ([]int, bool) { return nil, true }
	l.Do = func(context.Context, int) struct{} { return struct{}{} }
	idle := make(chan struct{})
	l.Round = func(context.Context) bool {
		if rounds.Add(1) == 5 {
			close(idle)
		}
		return rounds.Load() < 5
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	<-idle
	time.Sleep(20 * time.Millisecond)
	if n := rounds.Load(); n != 5 {
		t.Fatalf("%d rounds, want 5: four busy ones, then asleep", n)
	}
}

// TestOutcomes: each job's outcome reaches a later round's Claim exactly once; a round that
// could not record them hands them again; the outcomes of the jobs in flight when Run's ctx
// ends are recorded before Run returns.
func TestOutcomes(t *testing.T) {
	var mu sync.Mutex
	next, recorded := 0, map[int]int{}
	failOnce := true
	l := New[int, int](4, 5*time.Millisecond)
	l.Claim = func(_ context.Context, limit int, done []int) ([]int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(done) > 0 && failOnce {
			failOnce = false
			return nil, false // nothing recorded, nothing claimed
		}
		for _, d := range done {
			recorded[d]++
		}
		var out []int
		for ; len(out) < limit && next < 20; next++ {
			out = append(out, next)
		}
		return out, true
	}
	l.Do = func(_ context.Context, job int) int { return job * 10 }
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { l.Run(ctx); close(stopped) }()
	for {
		mu.Lock()
		n := next
		mu.Unlock()
		if n == 20 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-stopped
	for j := range 20 {
		if recorded[j*10] != 1 {
			t.Fatalf("outcome of job %d recorded %d times, want once (all: %v)", j, recorded[j*10], recorded)
		}
	}
	if len(recorded) != 20 {
		t.Fatalf("%d outcomes recorded, want 20: %v", len(recorded), recorded)
	}
}

// TestIdleBackoff: a loop whose rounds find nothing looks less and less often, up to
// MaxIdlePolls polls apart; work it is woken for starts at once, and the polls start afresh.
func TestIdleBackoff(t *testing.T) {
	var q queue
	var claims atomic.Int64
	ran := make(chan int, 1)
	l := New[int, struct{}](1, 100*time.Millisecond)
	l.Claim = func(ctx context.Context, limit int, done []struct{}) ([]int, bool) {
		claims.Add(1)
		return q.claim(ctx, limit, done)
	}
	l.Do = func(_ context.Context, j int) struct{} { ran <- j; return struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { l.Run(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	time.Sleep(2 * time.Second)
	// Every 100 ms: 20 looks. Doubling: 100, 200, 400, then 800 ms apart, about 5.
	if n := claims.Load(); n > 10 {
		t.Errorf("%d looks in 2 s of nothing to do, want at most 10 (polls doubling to %v apart)", n, MaxIdlePolls*100*time.Millisecond)
	}
	q.add(1)
	start := time.Now()
	l.Wake()
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the job woken for never ran")
	}
	if took := time.Since(start); took > 400*time.Millisecond { // the idle wait is 800 ms by now
		t.Errorf("the job woken for started after %v, want at once", took)
	}
	if got := IdleBackoff(10*time.Millisecond, 10*time.Millisecond); got != 20*time.Millisecond {
		t.Errorf("IdleBackoff(10ms) = %v, want 20ms", got)
	}
	if got := IdleBackoff(time.Second, 10*time.Millisecond); got != MaxIdlePolls*10*time.Millisecond {
		t.Errorf("IdleBackoff(1s) = %v, want its bound", got)
	}
}
