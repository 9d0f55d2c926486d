package chat

import (
	"context"
	"slices"
	"sync"
)

// The change feed. Every write that commits announces what it changed, once, after the
// commit, as typed Changes; a write that rolls back announces nothing. Listeners subscribe
// (Service.Subscribe): the socket hub turns changes into frames, the webhook, notification
// and agent workers wake for the work a change wrote, and per-node caches drop what a change
// made stale. No handler publishes or wakes anything by hand.
//
// Across nodes the store keeps a change log (ChangeLog, PostgreSQL): the changes of a write
// are logged in its own transaction, and each node follows the log from the last position it
// applied, so a node whose connection to the database dropped catches up when it is back.
// On SQLite (one node) the feed is this process's alone.

// ChangeKind says what a committed change did; listeners switch on it.
type ChangeKind string

const (
	// ChangeMessage: a message was stored: sent, approved from moderation, or an action
	// message recording an edit, a deletion, a group change or a call. Message is it.
	ChangeMessage ChangeKind = "message"
	// ChangeReaction: Actor added or removed Subject on message MessageID (Effect,
	// ReactionID, At); Message is the reacted message.
	ChangeReaction ChangeKind = "reaction"
	// ChangeUser: the users UIDs were created, changed, deactivated or deleted.
	ChangeUser ChangeKind = "user"
	// ChangeGroup: group GUID was created, changed or deleted.
	ChangeGroup ChangeKind = "group"
	// ChangeMember: the membership (joined, left, scope, ban) of UIDs in group GUID changed.
	ChangeMember ChangeKind = "member"
	// ChangeBlock: UIDs[0] blocked or unblocked the rest.
	ChangeBlock ChangeKind = "block"
	// ChangeFriend: UIDs[0]'s friends changed: the rest were added or removed.
	ChangeFriend ChangeKind = "friend"
	// ChangeConversation: a conversation's state for UIDs (none: for every party) changed:
	// read and delivery markers, unread marks, tags, conversation deletion and pins; or a
	// message's state in it that is not a new message (MessageID): its pin, a user's save.
	ChangeConversation ChangeKind = "conversation"
	// ChangeCall: a call (Subject, its session id) changed state.
	ChangeCall ChangeKind = "call"
	// ChangeToken: auth tokens of UIDs were created or deleted.
	ChangeToken ChangeKind = "token"
	// ChangeSettings: something app-wide changed: Subject names what (SettingApp, …).
	ChangeSettings ChangeKind = "settings"
	// ChangeTyping: an agent's bot, Actor, started (Subject TypingStarted) or stopped
	// (TypingEnded) typing to the user UIDs[0] or the group GUID. It commits nothing but its
	// log row: it rides the feed, not the bus, so that sockets get it in order with the
	// bot's messages on every node (Agents.AgentTyping).
	ChangeTyping ChangeKind = "typing"
)

// What a ChangeTyping change says (its Subject).
const (
	TypingStarted = "started"
	TypingEnded   = "ended"
)

// What a ChangeSettings change is about (its Subject).
const (
	SettingApp          = "app"           // the app itself: created, renamed, deleted, settings
	SettingAPIKeys      = "apikeys"       // REST API keys
	SettingRoles        = "roles"         // roles
	SettingFeatures     = "features"      // restricted features
	SettingPermissions  = "permissions"   // RBAC permissions
	SettingWebhooks     = "webhooks"      // webhooks and their triggers
	SettingNotification = "notifications" // notification settings, preferences, mutes, providers, push tokens
	SettingModeration   = "moderation"    // moderation rules, keyword lists, review queues
	SettingAgents       = "agents"        // AI agents
	SettingImport       = "import"        // data import jobs
	SettingPins         = "pins"          // the app's pinned-conversation list (system pins)
)

// Work is the worker queues a change wrote jobs to: their workers wake for it.
type Work uint8

const (
	WorkWebhook Work = 1 << iota // webhook deliveries (the outbox)
	WorkNotify                   // notification events
	WorkAgent                    // agent jobs
)

// WorkIn is the worker queues that changes wrote to: a worker subscribes to the feed and
// wakes when it finds its own.
func WorkIn(changes []Change) Work {
	var w Work
	for i := range changes {
		w |= changes[i].Work
	}
	return w
}

// Change is one committed change. The exported fields with a json tag are what the change
// log keeps; Message is this node's copy, read back by id on the others.
type Change struct {
	Kind ChangeKind `json:"k"`
	App  string     `json:"a"`
	// Conversation is the conversation it happened in, if any.
	Conversation string   `json:"c,omitempty"`
	MessageID    int64    `json:"m,omitempty"`
	GUID         string   `json:"g,omitempty"`
	UIDs         []string `json:"u,omitempty"`
	// Subject is a reaction, a call's session id, a role, or what a settings change is
	// about.
	Subject string `json:"s,omitempty"`
	// Actor made the change (a reaction's user).
	Actor      string         `json:"x,omitempty"`
	Effect     ReactionEffect `json:"e,omitempty"`
	ReactionID int64          `json:"r,omitempty"`
	At         int64          `json:"t,omitempty"`
	// Device is the client session (the SDK's resource header) of the request that made
	// the change: its own socket drops the frame, having the answer already.
	Device string `json:"d,omitempty"`
	// Work is the worker queues the change wrote to.
	Work Work `json:"w,omitempty"`

	// Message is the message as the change left it (ChangeMessage), or the reacted
	// message (ChangeReaction). Its ID and ConversationID fill MessageID and Conversation
	// when the change is logged and announced, so a write may point it at a message whose
	// id the store sets.
	Message *Message `json:"-"`
}

// settle fills what the change takes from its message.
func (c *Change) settle() {
	if c.Message == nil {
		return
	}
	if c.MessageID == 0 {
		c.MessageID = c.Message.ID
	}
	if c.Conversation == "" {
		c.Conversation = c.Message.ConversationID
	}
}

// Changes collects the changes of one write. A write inside Store.Transact adds them as it
// decides; since the store may run the transaction more than once, each run starts afresh.
type Changes struct {
	list []*Change
}

// Add records c.
func (cs *Changes) Add(c *Change) { cs.list = append(cs.list, c) }

type changesKey struct{}

// withChanges hands cs to the store with the write ctx is passed to: the store logs them in
// that write's transaction (LoggedChanges).
func withChanges(ctx context.Context, cs *Changes) context.Context {
	return context.WithValue(ctx, changesKey{}, cs)
}

// WithChanges is withChanges for storage that is driven without the service (its tests):
// the store logs cs's changes with the write ctx is passed to.
func WithChanges(ctx context.Context, cs *Changes) context.Context { return withChanges(ctx, cs) }

// writeCtx is the context of one write's storage call: ctx with the write's changes, which
// the store logs (LoggedChanges) and the service announces after it. One allocation holds
// the context, the collector and, for a write of one change (a send, a reaction), that
// change and its list: the hot paths pay for nothing else but the announced copy.
type writeCtx struct {
	context.Context
	cs   Changes
	list [1]*Change
	c    Change
}

func (w *writeCtx) Value(key any) any {
	if _, ok := key.(changesKey); ok {
		return &w.cs
	}
	return w.Context.Value(key)
}

// single makes w the context of a write on ctx that makes the one change c (w.c, which the
// write may complete with what only the store learns).
func (w *writeCtx) single(ctx context.Context, c Change) {
	w.Context, w.c = ctx, c
	w.list[0] = &w.c
	w.cs.list = w.list[:]
}

// LoggedChanges is what the store writes to its change log in the transaction of the write
// it was given ctx for, as the write left them (with the ids the store set); nil when the
// write announces nothing.
func LoggedChanges(ctx context.Context) []Change {
	cs, _ := ctx.Value(changesKey{}).(*Changes)
	if cs == nil || len(cs.list) == 0 {
		return nil
	}
	device := Device(ctx)
	out := make([]Change, 0, len(cs.list))
	for _, c := range cs.list {
		c.settle()
		v := *c
		if v.Device == "" {
			v.Device = device
		}
		out = append(out, v)
	}
	return out
}

type deviceKey struct{}

// WithDevice tells the service the client session a request comes from (the SDK's
// resource header), for the changes it makes.
func WithDevice(ctx context.Context, device string) context.Context {
	if device == "" {
		return ctx
	}
	return context.WithValue(ctx, deviceKey{}, device)
}

// Device is the client session WithDevice set.
func Device(ctx context.Context) string {
	d, _ := ctx.Value(deviceKey{}).(string)
	return d
}

// feed fans committed changes out to this node's listeners.
type feed struct {
	mu        sync.RWMutex
	listeners []func([]Change)
}

// Subscribe adds fn to the listeners of committed changes: this node's, as they commit, and
// other nodes', as the change log brings them (FollowChanges). fn runs on the goroutine that
// announces, so it must not wait: one that has work to do queues it. Subscribe before
// serving.
func (s *Service) Subscribe(fn func([]Change)) {
	s.feed.mu.Lock()
	s.feed.listeners = append(slices.Clip(s.feed.listeners), fn)
	s.feed.mu.Unlock()
}

// announce hands committed changes to every listener.
func (s *Service) announce(ctx context.Context, list []*Change) {
	if len(list) == 0 {
		return
	}
	changes := make([]Change, 0, len(list))
	device := Device(ctx)
	for _, c := range list {
		c.settle()
		v := *c
		if v.Device == "" {
			v.Device = device
		}
		changes = append(changes, v)
	}
	s.publishChanges(changes)
}

func (s *Service) publishChanges(changes []Change) {
	s.feed.mu.RLock()
	ls := s.feed.listeners
	s.feed.mu.RUnlock()
	for _, fn := range ls {
		fn(changes)
	}
}

// write runs one storage write with changes attached, for the store to log in its
// transaction, and announces them once it committed.
func (s *Service) write(ctx context.Context, fn func(ctx context.Context) error, changes ...*Change) error {
	w := &writeCtx{Context: ctx}
	w.cs.list = changes
	if err := fn(w); err != nil {
		return err
	}
	s.announce(ctx, w.cs.list)
	return nil
}

// transact runs fn in one write transaction (Store.Transact) and announces the changes it
// added once the transaction committed.
func (s *Service) transact(ctx context.Context, fn func(tx Tx, cs *Changes) error) error {
	w := &writeCtx{Context: ctx}
	err := s.store.Transact(w, func(tx Tx) error {
		w.cs.list = w.cs.list[:0]
		return fn(tx, &w.cs)
	})
	if err != nil {
		return err
	}
	s.announce(ctx, w.cs.list)
	return nil
}

// ChangeLog is the store's log of committed changes across nodes (sqlstore, on
// PostgreSQL). The store writes LoggedChanges in each write's transaction; Follow reads
// what the other nodes committed.
type ChangeLog interface {
	// FollowChanges calls apply with the changes other nodes commit from now on, in the
	// order of the log, until ctx ends. It resumes from the last position it applied when
	// its connection comes back; behind is called when changes were dropped from the log
	// (retention) before this node read them, so its listeners resync.
	//
	// live says whether this node follows the log: false when its listening connection
	// drops, true once it is back and has read what committed meanwhile.
	FollowChanges(ctx context.Context, apply func([]Change), behind func(), live func(bool)) error
	// Node is this process's id on the log; empty when the store keeps none (SQLite: one
	// node, whose changes never leave it).
	Node() string
}

// FollowChanges applies the changes other nodes commit to this node's listeners until ctx
// ends, when the store keeps a change log (PostgreSQL); on SQLite it returns at once.
// Messages are read back by id for listeners that render them; behind tells listeners that
// changes were missed (ChangeResync).
func (s *Service) FollowChanges(ctx context.Context) error {
	log, ok := s.store.(ChangeLog)
	if !ok {
		return nil
	}
	return log.FollowChanges(ctx, func(changes []Change) {
		s.hydrate(ctx, changes)
		s.publishChanges(changes)
	}, func() {
		s.publishChanges([]Change{{Kind: ChangeResync}})
	}, s.entities.setLive)
}

// ChangeResync tells listeners that this node missed changes (it fell behind the change
// log's retention): caches empty themselves and sockets are told to resync.
const ChangeResync ChangeKind = "resync"

// hydrate reads back, by id, the messages of changes from other nodes.
func (s *Service) hydrate(ctx context.Context, changes []Change) {
	byApp := map[string][]int64{}
	for _, c := range changes {
		if c.MessageID != 0 && (c.Kind == ChangeMessage || c.Kind == ChangeReaction) {
			byApp[c.App] = append(byApp[c.App], c.MessageID)
		}
	}
	for app, ids := range byApp {
		ms, err := s.store.MessagesByID(ctx, app, "", ids)
		if err != nil {
			continue // the listeners skip what they cannot render; clients resync through REST
		}
		for i := range changes {
			c := &changes[i]
			if c.App != app {
				continue
			}
			if m, ok := ms[c.MessageID]; ok {
				c.Message = &m
			}
		}
	}
}

// The changes most writes announce.

func settingsChange(app, subject string) *Change {
	return &Change{Kind: ChangeSettings, App: app, Subject: subject}
}

// UserRemoved marks a ChangeUser that deleted the users (soft or for good): their
// memberships and blocks are gone or no longer count, where any other user change leaves
// them as they were.
const UserRemoved = "removed"

func userChange(app string, uids ...string) *Change {
	return &Change{Kind: ChangeUser, App: app, UIDs: uids}
}

// messageChange announces m, stored by the write; work is the worker queues it wrote to.
func messageChange(m *Message, work Work) *Change {
	return &Change{Kind: ChangeMessage, App: m.AppID, Message: m, Work: work}
}

// transactSettings is transact for a write that changes the app's settings (subject, one
// of the Setting constants).
func (s *Service) transactSettings(ctx context.Context, app, subject string, fn func(tx Tx) error) error {
	return s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(app, subject))
		return fn(tx)
	})
}
