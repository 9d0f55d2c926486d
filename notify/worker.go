package notify

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/jobloop"
	"github.com/natter-chat/natter/wire"
)

// The notification workers (docs/notifications.md, "Sending"): every node expands the
// notification events the changes wrote (chat.ExpandNotification) and sends the due sends
// through the app's providers, leasing rows as the webhook workers do.

// Defaults of WorkerConfig.
const (
	DefaultWorkers    = 256
	DefaultRetryFor   = jobloop.DefaultRetryFor
	DefaultBackoff    = jobloop.DefaultBackoff
	DefaultMaxBackoff = jobloop.DefaultMaxBackoff
	DefaultPoll       = 500 * time.Millisecond
	DefaultRetention  = 7 * 24 * time.Hour
	senderTTL         = time.Minute // how long a provider's sender (and its access token) is reused
	maxExpansions     = 10          // attempts to expand an event before it is dropped
)

// WorkerConfig tunes the workers; zero values take the defaults.
type WorkerConfig struct {
	Node       string // this node's name in leases; random when empty
	Workers    int    // sends in flight on this node
	Timeout    time.Duration
	RetryFor   time.Duration // how long a send is retried before it is given up
	Backoff    time.Duration // the first retry's delay; each next one doubles, up to MaxBackoff
	MaxBackoff time.Duration
	Poll       time.Duration
	Retention  time.Duration // how long log records are kept
	Client     ClientConfig  // the providers' endpoints, timeouts and TLS
	Logger     *slog.Logger
}

// Worker runs a node's notification workers.
type Worker struct {
	svc    *chat.Service
	store  chat.NotificationDeliveryStore
	cfg    WorkerConfig
	client *Client
	log    *slog.Logger
	loop   *jobloop.Loop[chat.NotificationSend, chat.NotificationAttempt]
	retry  jobloop.Retry // RetryFor, Backoff and MaxBackoff

	lastPurge  time.Time     // only the loop's goroutine reads and writes it
	expandWake chan struct{} // wakes the expander (expandLoop)

	mu      sync.Mutex
	senders map[string]cachedSender // by app, provider kind and id
}

type cachedSender struct {
	s       Sender
	expires time.Time
}

// NewWorker returns the workers of a node; Run starts them.
func NewWorker(svc *chat.Service, cfg WorkerConfig) *Worker {
	if cfg.Node == "" {
		cfg.Node = jobloop.NodeName()
	}
	def := jobloop.Default
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	def(&cfg.Timeout, DefaultTimeout)
	def(&cfg.Poll, DefaultPoll)
	def(&cfg.Retention, DefaultRetention)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Client.Timeout = cfg.Timeout
	w := &Worker{svc: svc, store: svc.Notifications().NotificationDelivery(), cfg: cfg, client: NewClient(cfg.Client), log: cfg.Logger,
		retry: jobloop.NewRetry(cfg.RetryFor, cfg.Backoff, cfg.MaxBackoff), senders: map[string]cachedSender{},
		expandWake: make(chan struct{}, 1)}
	w.loop = jobloop.New[chat.NotificationSend, chat.NotificationAttempt](cfg.Workers, cfg.Poll)
	w.loop.Claim, w.loop.Round = w.claim, w.round
	w.loop.Do = func(ctx context.Context, s chat.NotificationSend) chat.NotificationAttempt {
		return w.attempt(context.WithoutCancel(ctx), s)
	}
	svc.Subscribe(func(changes []chat.Change) { // an event committed on this node is expanded and sent at once
		if chat.WorkIn(changes)&chat.WorkNotify != 0 {
			w.wakeExpander()
		}
	})
	return w
}

// Run expands events and sends until ctx ends, then waits for the sends in flight.
//
// Expanding and sending are two loops: the expander's rounds (many recipients' settings
// read per event) took the sends' claim loop's turn when they were its rounds, and on a
// loaded database a round of both let through a few dozen pushes a second while the
// sends went on (issue 30: 3 % pushed while sending on PostgreSQL).
func (w *Worker) Run(ctx context.Context) {
	done := make(chan struct{})
	go func() { defer close(done); w.expandLoop(ctx) }()
	w.loop.Run(ctx)
	<-done
}

func (w *Worker) wakeExpander() {
	select {
	case w.expandWake <- struct{}{}:
	default:
	}
}

// expandLoop expands due events until ctx ends, expanders rounds at once (their claims
// skip each other's events): each woken (the first also every Poll), and again at once
// while it finds some. A round that found a full batch wakes another expander. The sends a round writes
// wake the send loop.
func (w *Worker) expandLoop(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range expanders {
		wg.Go(func() {
			idle := w.cfg.Poll
			for ctx.Err() == nil {
				if n := w.expand(ctx); n > 0 {
					idle = w.cfg.Poll
					w.loop.Wake()
					if n == expandPerRound {
						w.wakeExpander()
					}
					continue
				}
				var poll <-chan time.Time // only the first polls, as the claim loops do (jobloop.IdleBackoff)
				if i == 0 {
					poll = time.After(idle)
				}
				select {
				case <-ctx.Done():
				case <-w.expandWake:
					idle = w.cfg.Poll
				case <-poll:
					idle = jobloop.IdleBackoff(idle, w.cfg.Poll)
				}
			}
		})
	}
	wg.Wait()
}

// round drops old log records once a minute.
func (w *Worker) round(ctx context.Context) (busy bool) {
	if time.Since(w.lastPurge) > time.Minute {
		w.lastPurge = time.Now()
		if err := w.store.PurgeNotificationLogs(ctx, time.Now().Add(-w.cfg.Retention).UnixMilli()); err != nil && ctx.Err() == nil {
			w.log.Warn("notify: purge log", "err", err)
		}
	}
	return busy
}

// claim records the attempts finished since the last round and leases due sends for two
// attempts' time, in one transaction.
func (w *Worker) claim(ctx context.Context, limit int, done []chat.NotificationAttempt) ([]chat.NotificationSend, bool) {
	now := time.Now()
	claimed, err := w.store.ClaimNotificationSends(ctx, chat.Lease{Node: w.cfg.Node, Now: now.UnixMilli(),
		Until: now.Add(2*w.cfg.Timeout + 5*time.Second).UnixMilli(), Limit: limit}, done)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("notify: record attempts and claim sends", "err", err)
		}
		return nil, false // a lease that did not commit is not ours to attempt
	}
	return claimed, true
}

// expandAtOnce bounds the events a round expands at once: each decision reads the
// recipients' settings, mutes and sockets, and waits on the database, not the CPU.
// expandPerRound is how many events a round leases to expand. With 8 at once, 32 a round
// and 16 sends in flight, whbench -notify on SQLite pushed 14 % of one-to-one messages
// while they were sent; with 16, 128 and 64, 35-41 %. expanders is how many rounds run at
// once: a round waits on its database round trips (claim, decisions, writes), so on a
// loaded PostgreSQL one expander alone was the pipeline's bound (whbench -notify: 25 %
// pushed while sending with one, 77 % with 4, 87-90 % with 8, 92-93 % with 16).
const (
	expandAtOnce   = 32
	expandPerRound = 256
	expanders      = 16
)

// expand leases a batch of events, expands them (expandAtOnce at a time; each decision
// still per recipient), and writes the expansions in one transaction; it reports how many
// it found.
func (w *Worker) expand(ctx context.Context) int {
	now := time.Now()
	evs, err := w.store.ClaimNotificationEvents(ctx, chat.Lease{Node: w.cfg.Node, Now: now.UnixMilli(),
		Until: now.Add(time.Minute).UnixMilli(), Limit: expandPerRound})
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("notify: claim events", "err", err)
		}
		return 0
	}
	xs := make([]*chat.ExpandedEvent, len(evs))
	sem := make(chan struct{}, expandAtOnce)
	var wg sync.WaitGroup
	for i, ev := range evs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			x, err := w.svc.Notifications().ExpandNotification(ctx, ev, time.Now())
			if err != nil && ev.Attempts < maxExpansions {
				w.log.Warn("notify: expand event", "app", ev.AppID, "event", ev.ID, "attempt", ev.Attempts, "err", err)
				return // its lease ends, and a worker tries again
			}
			if err != nil {
				w.log.Error("notify: event dropped after repeated failures", "app", ev.AppID, "event", ev.ID, "attempts", ev.Attempts, "err", err)
				x = chat.Expansion{} // deleting it, with nothing decided, ends the retries
			}
			xs[i] = &chat.ExpandedEvent{EventID: ev.ID, Logs: x.Logs, Sends: x.Sends}
		}()
	}
	wg.Wait()
	var batch []chat.ExpandedEvent
	for _, x := range xs {
		if x != nil {
			batch = append(batch, *x)
		}
	}
	if err := w.store.FinishNotificationEvents(ctx, w.cfg.Node, batch); err != nil {
		w.log.Warn("notify: record events", "events", len(batch), "err", err)
	}
	return len(evs)
}

// attempt sends one notification and returns what came of it, for the next round to record.
func (w *Worker) attempt(ctx context.Context, s chat.NotificationSend) chat.NotificationAttempt {
	now := time.Now()
	log := chat.NotificationLog{AppID: s.AppID, EventID: s.EventID, Trigger: s.Trigger, MessageID: s.MessageID, Recipient: s.UID,
		Channel: s.Channel, Provider: s.Provider, Triggered: true, Attempt: s.Attempts}
	c, err := w.svc.Notifications().NotificationContentFor(ctx, s)
	if err == nil && c.Message != nil {
		m := c.Message
		log.MessageCategory, log.MessageType, log.Sender, log.Receiver, log.ReceiverType = m.Category, m.Type, m.Sender, m.Receiver, m.ReceiverType
	}
	switch {
	case s.Trigger == chat.TriggerReactionAdded:
		log.Sender, log.ReactionID = s.Ref.UID, s.Ref.ReactionID // who reacted, as the decision's record says
	case c.Message != nil && c.Message.TargetUID != "":
		log.Member = c.Message.TargetUID
	}
	var res Result
	switch {
	case err != nil:
		res = Result{Retry: true, Err: err}
	case c.Gone:
		res = Result{Reason: "messageDeleted", Err: errGone}
	case c.Read:
		log.Triggered, log.Reason = false, chat.ReasonRead
		log.CreatedAt = now.UnixMilli()
		return chat.NotificationAttempt{Send: s, Log: log, Done: true}
	default:
		res = w.send(ctx, s, c)
	}
	log.CreatedAt = time.Now().UnixMilli()
	log.Success, log.Status, log.LatencyMS, log.Reason = res.OK(), res.Status, res.Latency.Milliseconds(), res.Reason
	done := true
	switch {
	case res.OK():
	case res.InvalidToken:
		if log.Reason == "" {
			log.Reason = "invalidToken"
		}
		if err := w.svc.Notifications().DropPushToken(ctx, s.AppID, s.Destination); err != nil {
			w.log.Warn("notify: drop push token", "app", s.AppID, "err", err)
		}
	case res.Misconfigured:
		if log.Reason == "" {
			log.Reason = "misconfigured"
		}
		w.forget(s)
	case res.Retry && !w.retry.Over(s.CreatedAt, now):
		done = false
		wait := w.retry.Delay(s.Attempts)
		if res.RetryAfter > wait {
			wait = res.RetryAfter
		}
		s.NextAt = now.Add(wait).UnixMilli()
		if log.Reason == "" {
			log.Reason = "retry"
		}
	default:
		if log.Reason == "" {
			log.Reason = "failed"
		}
	}
	return chat.NotificationAttempt{Send: s, Log: log, Done: done}
}

// send renders and sends s.
func (w *Worker) send(ctx context.Context, s chat.NotificationSend, c chat.NotificationContent) Result {
	sender, res := w.sender(ctx, s)
	if sender == nil {
		return res
	}
	data := wire.WebhookData(c.Subject)
	var vars any
	if err := json.Unmarshal(data, &vars); err != nil {
		return Result{Err: err}
	}
	n := Notification{Channel: Channel(s.Channel), UID: s.UID, Name: c.Name, To: s.Destination, VoIP: s.TokenKind == chat.PushVoIP,
		Event: data}
	m := c.Message
	switch s.Channel {
	case chat.ChannelPush:
		if title, body, ok := c.ReactionText(); ok {
			n.Title, n.Body, n.Sound = title, body, c.Settings.Sound.Chat
			n.Data = map[string]string{"type": "reaction", "conversationId": m.ConversationID, "messageId": itoa(m.ID),
				"reaction": c.Subject.Reaction.Reaction, "reactedBy": c.Subject.Reaction.ReactedBy.UID}
			break
		}
		if title, body, ok := c.MemberText(s.Trigger); ok {
			n.Title, n.Body, n.Sound = title, body, c.Settings.Sound.Chat
			n.Data = map[string]string{"type": "groupMember", "conversationId": m.ConversationID, "messageId": itoa(m.ID),
				"trigger": s.Trigger, "member": m.TargetUID}
			break
		}
		title, body, fallback := c.PushTemplate()
		n.Title, _ = Render(title, vars)
		var complete bool
		if n.Body, complete = Render(body, vars); !complete && fallback != "" {
			n.Body, _ = Render(fallback, vars)
		}
		n.Sound = c.Settings.Sound.Chat
		n.Data = map[string]string{"type": "chat", "conversationId": m.ConversationID, "messageId": itoa(m.ID),
			"sender": m.Sender, "receiver": m.Receiver, "receiverType": m.ReceiverType}
	default:
		digest := map[string]any{
			"senderDetails": map[string]any{"uid": m.Sender, "name": m.SenderEntity.Name},
			"groupDetails":  map[string]any{"guid": m.Receiver, "name": groupName(m)},
			"messages":      []any{map[string]any{"message": messageText(m), "id": itoa(m.ID)}},
		}
		if s.Channel == chat.ChannelSMS {
			n.Body, _ = Render(c.SMSTemplate(), digest)
		} else {
			n.Title, _ = Render(c.EmailSubjectTemplate(), digest)
			n.Body = messageText(m)
		}
	}
	return sender.Send(ctx, n)
}

var errGone = errorString("the message was deleted")

type errorString string

func (e errorString) Error() string { return string(e) }

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func groupName(m *chat.Message) string {
	if m.ReceiverGroup != nil {
		return m.ReceiverGroup.Name
	}
	return ""
}

func messageText(m *chat.Message) string {
	var d struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Data, &d)
	return d.Text
}
