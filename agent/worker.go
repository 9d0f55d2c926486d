// Package agent runs the AI agents' jobs (docs/agents.md): every node leases the jobs the
// sends wrote (chat.AgentStore), posts the conversation's recent history to the agent's
// endpoint and posts the answer back as the bot's message; a streamed answer becomes one
// message edited as it grows. It imports chat only.
package agent

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/jobloop"
	"github.com/natter-chat/natter/internal/safedial"
)

// Defaults of Config.
const (
	DefaultWorkers        = 8
	DefaultPoll           = time.Second
	DefaultStreamDeadline = 5 * time.Minute
	DefaultRetries        = 2
	DefaultBackoff        = time.Second
	DefaultThrottle       = 300 * time.Millisecond
	DefaultTypingEvery    = 5 * time.Second
	// MaxAnswerBytes bounds an answer's text: a message's data is at most 10 KB.
	MaxAnswerBytes = 8000
	// maxBody bounds what is read of a plain answer.
	maxBody = 256 << 10
	// maxClaims is how often a job is taken before it is given up: a node that died with it
	// (or a call that outlived its lease) leaves it to be taken again.
	maxClaims = 3
)

// Config tunes the workers; zero values take the defaults.
type Config struct {
	Node    string // this node's name in leases; random when empty
	Workers int    // jobs in flight on this node
	Poll    time.Duration
	// StreamDeadline bounds a whole job: every attempt, and a streamed answer to its end.
	StreamDeadline time.Duration
	// Retries after a connection error, a timeout before the answer began, or a 5xx or 429
	// status; Backoff is the first one's delay, doubling. Never after a stream began.
	Retries  int
	Backoff  time.Duration
	Throttle time.Duration // a streamed answer's message is edited at most this often
	// TypingEvery repeats the bot's typing indicator while the agent works.
	TypingEvery time.Duration
	// TimeoutUnit is what an agent's timeoutSeconds counts (tests shorten it); default a second.
	TimeoutUnit  time.Duration
	AllowPrivate bool // call loopback, private and link-local addresses too
	Logger       *slog.Logger
}

// Worker runs a node's agent workers.
type Worker struct {
	svc    *chat.Service
	store  chat.AgentStore
	cfg    Config
	client *http.Client
	log    *slog.Logger
	loop   *jobloop.Loop[chat.AgentJob, struct{}]
	retry  jobloop.Backoff // Backoff, doubling: a job's few retries run within one call's deadline
}

// New returns the workers of a node; Run starts them.
func New(svc *chat.Service, cfg Config) *Worker {
	if cfg.Node == "" {
		cfg.Node = jobloop.NodeName()
	}
	def := jobloop.Default
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	} else if cfg.Retries == 0 {
		cfg.Retries = DefaultRetries
	}
	def(&cfg.Poll, DefaultPoll)
	def(&cfg.StreamDeadline, DefaultStreamDeadline)
	def(&cfg.Backoff, DefaultBackoff)
	def(&cfg.Throttle, DefaultThrottle)
	def(&cfg.TypingEvery, DefaultTypingEvery)
	def(&cfg.TimeoutUnit, time.Second)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &Worker{svc: svc, store: svc.Agents().AgentJobs(), cfg: cfg, log: cfg.Logger, retry: jobloop.Backoff{First: cfg.Backoff},
		client: safedial.Client(safedial.Options{Timeout: cfg.StreamDeadline, AllowPrivate: cfg.AllowPrivate, Name: "agent",
			AllowFlag: "--webhook-allow-private"})}
	w.loop = jobloop.New[chat.AgentJob, struct{}](cfg.Workers, cfg.Poll)
	w.loop.Claim = w.claim
	w.loop.Do = func(ctx context.Context, job chat.AgentJob) struct{} { w.run(ctx, job); return struct{}{} }
	svc.Subscribe(func(changes []chat.Change) { // a job committed on this node is answered at once
		if chat.WorkIn(changes)&chat.WorkAgent != 0 {
			w.loop.Wake()
		}
	})
	return w
}

// Run takes jobs until ctx ends, then stops the jobs in flight and waits for them: a job
// stopped so is taken again after its lease, by this node or another.
func (w *Worker) Run(ctx context.Context) { w.loop.Run(ctx) }

// claim leases due jobs for long enough to finish a streamed answer. A job records its own
// end (finish): it is long, and its answer is a message, so there is nothing to batch.
func (w *Worker) claim(ctx context.Context, limit int, _ []struct{}) ([]chat.AgentJob, bool) {
	if limit == 0 {
		return nil, true
	}
	now := time.Now()
	claimed, err := w.store.ClaimAgentJobs(ctx, chat.Lease{Node: w.cfg.Node, Now: now.UnixMilli(),
		Until: now.Add(w.cfg.StreamDeadline + 30*time.Second).UnixMilli(), Limit: limit})
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("agent: claim jobs", "err", err)
		}
		return nil, true // a lease that did not commit is not ours to run
	}
	return claimed, true
}

// run does one job: the call, the answer, and the job deleted, unless the worker stopped
// meanwhile.
func (w *Worker) run(ctx context.Context, job chat.AgentJob) {
	log := w.log.With("app", job.AppID, "agent", job.AgentUID, "job", job.ID)
	c, err := w.svc.Agents().PrepareAgentCall(ctx, job)
	switch {
	case errors.Is(err, chat.ErrAgentGone):
		w.finish(ctx, log, job)
		return
	case err != nil:
		if ctx.Err() == nil {
			log.Warn("agent: prepare the call", "err", err)
			if job.Attempts >= maxClaims {
				w.finish(ctx, log, job)
			}
		}
		return
	}
	if job.ReplyID != 0 || job.Attempts > maxClaims {
		// Taken over: the node that had it stopped mid-answer, or it was taken too often.
		f := failure{code: "interrupted", msg: "the answer was interrupted"}
		if job.ReplyID != 0 {
			w.failPartial(ctx, log, c, job.ReplyID, "", f)
		} else {
			w.fail(ctx, log, c, f)
		}
		w.finish(ctx, log, job)
		return
	}
	w.typing(log, c, true)
	typingDone, typingStopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(typingStopped)
		t := time.NewTicker(w.cfg.TypingEvery)
		defer t.Stop()
		for {
			select {
			case <-typingDone:
				return
			case <-t.C:
				w.typing(log, c, true)
			}
		}
	}()
	done := w.answer(ctx, log, c)
	close(typingDone)
	<-typingStopped // a repeat of "started" under way goes before "ended", not after it
	w.typing(log, c, false)
	if done && ctx.Err() == nil {
		w.finish(ctx, log, job)
	}
}

// typing shows (or stops showing) the bot typing; a failure costs the indicator alone.
func (w *Worker) typing(log *slog.Logger, c chat.AgentCall, started bool) {
	if err := w.svc.Agents().AgentTyping(context.Background(), c, started); err != nil {
		log.Warn("agent: typing indicator", "started", started, "err", err)
	}
}

func (w *Worker) finish(ctx context.Context, log *slog.Logger, job chat.AgentJob) {
	if err := w.store.FinishAgentJob(context.WithoutCancel(ctx), w.cfg.Node, job.ID); err != nil {
		log.Warn("agent: finish job", "err", err)
	}
}

// logPost logs a failed post of the bot's message; an agent deleted or deactivated
// meanwhile is no failure.
func logPost(log *slog.Logger, err error) {
	if errors.Is(err, chat.ErrAgentGone) {
		log.Info("agent: deleted or deactivated during the call; its answer is dropped")
		return
	}
	log.Warn("agent: post the answer", "err", err)
}
