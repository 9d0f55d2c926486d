package webhook

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/jobloop"
)

// Defaults of Config.
const (
	DefaultWorkers    = 1024
	DefaultPerLane    = 16
	DefaultConns      = 32
	DefaultTimeout    = 10 * time.Second
	DefaultRetryFor   = jobloop.DefaultRetryFor
	DefaultBackoff    = jobloop.DefaultBackoff
	DefaultMaxBackoff = jobloop.DefaultMaxBackoff
	DefaultPoll       = 500 * time.Millisecond
	DefaultRetention  = 7 * 24 * time.Hour
	maxResponseRead   = 64 << 10 // bytes of an answer read (and dropped), so a connection can be reused
	maxErrorLen       = 300
	hookTTL           = time.Second // how long a webhook's settings (URL, secrets, credentials) are reused
)

// Config tunes the workers; zero values take the defaults.
type Config struct {
	Node string // this node's name in leases; random when empty
	// Workers is how many lanes (a webhook's conversations) this node serves at once, each
	// a worker posting its lane's due deliveries in order.
	Workers    int
	PerWebhook int // lanes in flight for one webhook, across nodes; default Workers/4, at least 1
	PerApp     int // lanes in flight for one app's webhooks, across nodes; default Workers/2, at least PerWebhook
	PerLane    int // a conversation's due deliveries one worker takes at once and posts in order; default 16
	// Conns is how many requests this node has in flight to one webhook (its lanes take
	// turns); default DefaultConns, at most PerWebhook.
	Conns        int
	Timeout      time.Duration // per attempt
	RetryFor     time.Duration // how long a delivery is retried before it is dead-lettered
	Backoff      time.Duration // the first retry's delay; each next one doubles, up to MaxBackoff
	MaxBackoff   time.Duration
	Poll         time.Duration // how often the outbox is looked at when idle
	Retention    time.Duration // how long done events and their log are kept
	AllowPrivate bool          // deliver to loopback, private and link-local addresses
	Logger       *slog.Logger
	// Observe, when set, learns each attempt's outcome ("delivered", "failed", "dead") and
	// how long it took (the Prometheus figures of cmd/natter).
	Observe func(outcome string, took time.Duration)
}

// Deliverer runs this node's workers.
type Deliverer struct {
	svc     *chat.Service
	store   chat.DeliveryStore
	cfg     Config
	client  *http.Client
	log     *slog.Logger
	loop    *jobloop.Loop[laneBatch, []chat.Delivery]
	retry   jobloop.Retry // RetryFor, Backoff and MaxBackoff
	hooks   hookCache
	data    payloadCache
	gatesMu sync.Mutex
	gates   map[[2]string]chan struct{} // per webhook, Conns requests in flight

	lastPurge time.Time // only the loop's goroutine reads and writes it
}

// New returns the workers of a node; Run starts them.
func New(svc *chat.Service, cfg Config) *Deliverer {
	if cfg.Node == "" {
		cfg.Node = jobloop.NodeName()
	}
	def := jobloop.Default
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.PerWebhook <= 0 {
		cfg.PerWebhook = max(1, cfg.Workers/4)
	}
	if cfg.PerApp <= 0 {
		cfg.PerApp = max(cfg.PerWebhook, cfg.Workers/2)
	}
	if cfg.PerLane <= 0 {
		cfg.PerLane = DefaultPerLane
	}
	if cfg.Conns <= 0 {
		cfg.Conns = DefaultConns
	}
	cfg.Conns = min(cfg.Conns, cfg.PerWebhook)
	def(&cfg.Timeout, DefaultTimeout)
	def(&cfg.Poll, DefaultPoll)
	def(&cfg.Retention, DefaultRetention)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	d := &Deliverer{svc: svc, store: svc.Webhooks().Outbox(), cfg: cfg, client: newClient(cfg.Timeout, cfg.AllowPrivate, cfg.Conns),
		log: cfg.Logger, retry: jobloop.NewRetry(cfg.RetryFor, cfg.Backoff, cfg.MaxBackoff),
		hooks: hookCache{m: map[[2]string]cachedHook{}}, data: payloadCache{m: map[int64]*rendering{}},
		gates: map[[2]string]chan struct{}{}}
	d.loop = jobloop.New[laneBatch, []chat.Delivery](cfg.Workers, cfg.Poll)
	d.loop.Claim, d.loop.Round = d.claim, d.purge
	d.loop.Do = func(ctx context.Context, b laneBatch) []chat.Delivery {
		return d.attemptLane(context.WithoutCancel(ctx), b)
	}
	// A change that wrote deliveries wakes the workers at once: one committed on this node
	// as it commits, one of another node when the change log brings it (FollowChanges).
	svc.Subscribe(func(changes []chat.Change) {
		if chat.WorkIn(changes)&chat.WorkWebhook != 0 {
			d.loop.Wake()
		}
	})
	return d
}

// Run claims and delivers until ctx ends, then waits for the attempts in flight. A lease
// outlives an attempt by a margin: a node that dies mid-attempt leaves its deliveries to
// the others once their leases end, and the receiver may see that event twice, with the
// same event id and the next attempt number (an attempt number is never posted twice:
// docs/webhooks.md).
func (d *Deliverer) Run(ctx context.Context) { d.loop.Run(ctx) }

// laneBatch is one worker's job: consecutive due deliveries of one lane (webhook and
// conversation), in order, leased together at claimed.
type laneBatch struct {
	claimed time.Time
	dels    []chat.Delivery
}

// claim records the outcomes of the attempts finished since the last round and leases due
// deliveries for two attempts' time, at most PerWebhook lanes of one webhook and PerApp of
// one app in flight (across nodes), up to PerLane of each lane, in one transaction.
//
// A lane's deliveries go out one after the other, so a conversation's events reach a
// webhook no faster than one attempt and one round trip to the outbox each when a worker
// takes one at a time: with 16 of a webhook's lanes in flight and rounds of tens of ms on a
// loaded PostgreSQL, under 100 events a second. A worker that takes a lane's backlog posts
// it at the receiver's pace, and a round's writes serve as many events as there are. And
// since a busy app spreads its events over many conversations, each with a few due at a
// time, a webhook's lanes in flight are many (256 by default): with 16 (2026-11-26), a
// round served 16 of 256 busy conversations, and on a loaded PostgreSQL the outbox fell
// behind the sends (35-45 % delivered while they ran; 96-100 % with 256).
func (d *Deliverer) claim(ctx context.Context, limit int, done [][]chat.Delivery) ([]laneBatch, bool) {
	now := time.Now()
	claimed, err := d.store.ClaimDeliveries(ctx, chat.Lease{Node: d.cfg.Node, Now: now.UnixMilli(),
		Until: now.Add(2*d.cfg.Timeout + 5*time.Second).UnixMilli(), Limit: limit, PerWebhook: d.cfg.PerWebhook, PerApp: d.cfg.PerApp,
		PerLane: d.cfg.PerLane}, slices.Concat(done...))
	if err != nil {
		// Nothing claimed is posted: a lease that did not commit counted no attempt, and the
		// next claim would post the same attempt number again.
		if ctx.Err() == nil {
			d.log.Warn("webhook: record attempts and claim deliveries", "err", err)
		}
		return nil, false
	}
	return lanes(now, claimed), true
}

// lanes groups claimed deliveries by lane, each lane's in event order.
func lanes(at time.Time, claimed []chat.Delivery) []laneBatch {
	var out []laneBatch
	index := map[[3]string]int{}
	for _, del := range claimed {
		k := [3]string{del.AppID, del.WebhookID, del.ConversationID}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, laneBatch{claimed: at})
		}
		out[i].dels = append(out[i].dels, del)
	}
	for _, b := range out {
		slices.SortFunc(b.dels, func(x, y chat.Delivery) int { return cmp.Compare(x.EventID, y.EventID) })
	}
	return out
}

// attemptLane posts a lane's deliveries in order and returns their outcomes. It stops at
// the first that fails (those after it wait for its retry, in order), and starts none once
// Timeout has passed since the claim, so that the batch ends (each attempt bounded by
// Timeout) well within its lease of two attempts' time; the deliveries it does not attempt
// go back to the outbox uncounted. Each attempt waits for one of its webhook's Conns: many
// lanes of a webhook are leased at once, so that a round serves every conversation with
// events due (a lane holds a conversation's events, a few each round when each
// conversation is busy but not hot), and they take turns at the receiver.
//
// The events' data is rendered for all of them at once first (each a read of what it is
// about, unless the feed announced it): posted one after the other, a lane would otherwise
// wait for a database round trip before every post, and on a loaded database a lane's pace
// is that of its reads.
func (d *Deliverer) attemptLane(ctx context.Context, b laneBatch) []chat.Delivery {
	for _, del := range b.dels[1:] {
		if del.Payload == nil {
			go d.payload(ctx, del) // kept in d.data for the attempt to take
		}
	}
	out := make([]chat.Delivery, len(b.dels))
	gate := d.gate(b.dels[0].AppID, b.dels[0].WebhookID)
	deadline := time.NewTimer(time.Until(b.claimed.Add(d.cfg.Timeout)))
	defer deadline.Stop()
	stop := false
	for i, del := range b.dels {
		stop = stop || i > 0 && time.Since(b.claimed) >= d.cfg.Timeout
		if !stop {
			select {
			case gate <- struct{}{}:
			default: // the webhook's requests are all in flight: wait for one, up to the deadline
				select {
				case gate <- struct{}{}:
				case <-deadline.C:
					stop = true
				}
			}
		}
		if stop {
			del.Unattempted = true
			out[i] = del
			continue
		}
		out[i] = d.attempt(ctx, del)
		<-gate
		stop = out[i].State != chat.DeliveryDelivered
	}
	return out
}

// gate is webhook id of app's share of requests in flight: a slot taken for each attempt.
func (d *Deliverer) gate(app, id string) chan struct{} {
	k := [2]string{app, id}
	d.gatesMu.Lock()
	defer d.gatesMu.Unlock()
	g, ok := d.gates[k]
	if !ok {
		if len(d.gates) > 10000 { // webhooks of many apps: start afresh (a gate in use stays with its holders)
			clear(d.gates)
		}
		g = make(chan struct{}, d.cfg.Conns)
		d.gates[k] = g
	}
	return g
}

// purge drops, once a minute, the done events and their log past their retention.
func (d *Deliverer) purge(ctx context.Context) (busy bool) {
	if time.Since(d.lastPurge) > time.Minute {
		d.lastPurge = time.Now()
		if err := d.store.PurgeOutbox(ctx, time.Now().Add(-d.cfg.Retention).UnixMilli()); err != nil && ctx.Err() == nil {
			d.log.Warn("webhook: purge outbox", "err", err)
		}
	}
	return false
}

// attempt posts one delivery and returns what came of it, for the next round to record.
func (d *Deliverer) attempt(ctx context.Context, del chat.Delivery) chat.Delivery {
	status, latency, err := d.post(ctx, &del)
	now := time.Now()
	del.LastStatus, del.LatencyMS, del.LastError = status, latency.Milliseconds(), ""
	switch {
	case err == nil:
		del.State, del.DoneAt = chat.DeliveryDelivered, now.UnixMilli()
	default:
		del.LastError = truncate(err.Error(), maxErrorLen)
		if d.retry.Over(del.CreatedAt, now) {
			del.State, del.DoneAt = chat.DeliveryDead, now.UnixMilli()
			d.log.Warn("webhook: delivery dead-lettered", "app", del.AppID, "webhook", del.WebhookID, "event", del.EventID, "attempts", del.Attempts, "err", err)
		} else {
			del.NextAt = now.Add(d.retry.Delay(del.Attempts)).UnixMilli()
		}
	}
	if d.cfg.Observe != nil {
		outcome := "failed"
		switch del.State {
		case chat.DeliveryDelivered:
			outcome = "delivered"
		case chat.DeliveryDead:
			outcome = "dead"
		}
		d.cfg.Observe(outcome, latency)
	}
	return del
}

// post sends the delivery once: 2xx is delivered, anything else an error to retry. It
// sets del's Payload (and Rendered) to the data it rendered, for the outbox to keep.
func (d *Deliverer) post(ctx context.Context, del *chat.Delivery) (int, time.Duration, error) {
	w, app, err := d.hook(ctx, del.AppID, del.WebhookID)
	if err != nil {
		return 0, 0, err
	}
	if !w.Enabled {
		return 0, 0, errors.New("the webhook is disabled")
	}
	data, err := d.payload(ctx, *del)
	if err != nil {
		return 0, 0, err
	}
	if del.Payload == nil {
		del.Payload, del.Rendered = data, true
	}
	body, err := json.Marshal(struct {
		Trigger string          `json:"trigger"`
		Data    json.RawMessage `json:"data"`
		AppID   string          `json:"appId"`
		Region  chat.Region     `json:"region"`
		Webhook string          `json:"webhook"`
	}{del.Trigger, data, app.ID, app.Region, w.ID})
	if err != nil {
		return 0, 0, err
	}
	ts := time.Now().Unix()
	secrets, err := d.svc.Webhooks().SigningSecrets(ctx, w, ts)
	if err != nil {
		return 0, 0, fmt.Errorf("open signing secrets: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "natter-webhook/1")
	req.Header.Set(HeaderEventID, chat.EventID(del.EventID))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderAttempt, strconv.Itoa(del.Attempts))
	req.Header.Set(HeaderTrigger, del.Trigger)
	req.Header.Set(HeaderSignature, SignatureHeader(secrets, ts, body))
	if creds, err := d.svc.Webhooks().BasicCredentials(ctx, w); err != nil {
		return 0, 0, fmt.Errorf("open credentials: %w", err)
	} else if creds != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(creds)))
	}
	start := time.Now()
	res, err := d.client.Do(req)
	latency := time.Since(start)
	if err != nil {
		return 0, latency, err
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, maxResponseRead))
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, latency, fmt.Errorf("the endpoint answered %d", res.StatusCode)
	}
	return res.StatusCode, latency, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
