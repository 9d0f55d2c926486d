package chat

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AI agents (docs/agents.md): a bot user bound to an HTTP endpoint. A text message to the
// agent's user, or one that mentions it in a group, writes an agent job in the send's
// transaction (the outbox); a worker (package agent) leases the job, posts the conversation's
// recent history to the endpoint and posts the answer back as the bot's message. The bot
// marker is the agent row itself: a user bound to an agent (active or not) is a bot, and a
// bot's messages never trigger an agent, so two agents cannot talk to each other forever.

// Limits and defaults of agents.
const (
	MaxAgentNameLen        = 100 // the hosted service's
	MaxAgentLabelLen       = 50  // integrateWith
	MaxAgentInstructionLen = 10000
	MaxAgentURLLen         = 2048
	MaxAgentHeaders        = 20
	MaxAgentHeaderLen      = 1024 // a header's value
	MaxAgentHistory        = 100
	DefaultAgentHistory    = 20
	MaxAgentTimeout        = 120 // seconds
	DefaultAgentTimeout    = 30
	MaxAgentsPerApp        = 100
	// MaxAgentsPerMessage bounds the agents one group message wakes: the first it mentions.
	MaxAgentsPerMessage = 5
)

// IntegrationAgent is the one integrationType natter serves: an endpoint natter calls. The
// hosted "llm" type has the hosted service call a model itself, which natter does not.
const IntegrationAgent = "agent"

// Agent is an app's agent: its bot user's uid and the endpoint answering for it.
type Agent struct {
	AppID           string
	UID             string
	Name            string
	Icon            string
	IsActive        bool
	IntegrateWith   string
	IntegrationType string
	URL             string
	// Headers are the extra request headers, sealed (webhookcrypto.go); HeaderNames their
	// names, which answers show with masked values.
	Headers        []byte
	HeaderNames    []string
	Instruction    string
	Metadata       json.RawMessage
	HistoryLength  int
	TimeoutSeconds int
	CreatedAt      int64
	UpdatedAt      int64
}

// AgentJob is a leased job: one message an agent must answer.
type AgentJob struct {
	ID             int64
	AppID          string
	AgentUID       string
	ConversationID string
	MessageID      int64
	ReplyID        int64 // the bot's message a streamed answer created; 0 before
	CreatedAt      int64 // UNIX milliseconds
	Attempts       int
}

// AgentStore keeps agents and their jobs.
type AgentStore interface {
	// CreateAgent stores a, and first its user u when u is not nil, in one transaction;
	// ErrAlreadyExists when the app has an agent (or, with u, a user) of that uid.
	CreateAgent(ctx context.Context, a Agent, u *User) error
	// Agent reads an agent; ErrNotFound when the app has none of that uid.
	Agent(ctx context.Context, appID, uid string) (Agent, error)
	// Agents lists the app's agents by uid.
	Agents(ctx context.Context, appID string) ([]Agent, error)
	// UpdateAgent writes a over the stored agent (ErrNotFound when gone); an agent that is
	// not active any more loses its pending jobs in the same transaction.
	UpdateAgent(ctx context.Context, a Agent) error
	// DeleteAgent deletes the agent and its pending jobs; ErrNotFound when it has none.
	DeleteAgent(ctx context.Context, appID, uid string) error
	// AgentUIDs maps each of the app's agents' uids to whether it is active.
	AgentUIDs(ctx context.Context, appID string) (map[string]bool, error)
	// ClaimAgentJobs leases jobs whose lease has ended (or never began), oldest first,
	// counting an attempt on each; on PostgreSQL FOR UPDATE SKIP LOCKED.
	ClaimAgentJobs(ctx context.Context, l Lease) ([]AgentJob, error)
	// SetAgentReply records the bot's message of a job node holds.
	SetAgentReply(ctx context.Context, node string, jobID, replyID int64) error
	// FinishAgentJob deletes a job node holds (else does nothing: another node took it).
	FinishAgentJob(ctx context.Context, node string, jobID int64) error
	// AgentHistory lists up to limit messages (not actions, not deleted) of a conversation
	// with ids below before, newest first: the top-level ones, or with parentID a thread's
	// replies and its parent.
	AgentHistory(ctx context.Context, appID, conversationID string, parentID, before int64, limit int) ([]Message, error)
}

// AgentCreate is a create-agent request; nil leaves a default.
type AgentCreate struct {
	UID             string
	Name            string
	Icon            string
	IsActive        *bool
	IntegrateWith   string
	IntegrationType string
	URL             string
	Headers         map[string]string
	Instruction     string
	Metadata        json.RawMessage
	HistoryLength   *int
	TimeoutSeconds  *int
}

// AgentChange is a partial update; nil leaves a field alone. Headers, when not nil, replace
// the headers (an empty map removes them).
type AgentChange struct {
	Name            *string
	Icon            *string
	IsActive        *bool
	IntegrateWith   *string
	IntegrationType *string
	URL             *string
	Headers         map[string]string
	Instruction     *string
	Metadata        json.RawMessage
	HistoryLength   *int
	TimeoutSeconds  *int
}

func errAgentNotFound(uid string) error {
	if !quotableID(uid) {
		return Errorf(CodeAgentNotFound, "The agent does not exist.")
	}
	return Errorf(CodeAgentNotFound, "The agent %s does not exist.", uid)
}

// agentFields validates what create and update share; headers is nil when not sent.
func (s *Service) agentFields(fe fieldErrors, a *Agent, headers map[string]string) {
	fe.text("name", a.Name, MaxAgentNameLen, true)
	fe.text("icon", a.Icon, MaxURLLen, false)
	fe.text("integrateWith", a.IntegrateWith, MaxAgentLabelLen, false)
	fe.text("instruction", a.Instruction, MaxAgentInstructionLen, false)
	if a.IntegrationType != IntegrationAgent {
		fe.add("integrationType", `The integrationType must be "agent": natter calls the agent's endpoint (integrationMeta.url) and no model of its own.`)
	}
	s.agentURL(fe, a.URL)
	if a.HistoryLength < 0 || a.HistoryLength > MaxAgentHistory {
		fe.add("historyLength", "The historyLength must be between 0 and "+strconv.Itoa(MaxAgentHistory)+".")
	}
	if a.TimeoutSeconds < 1 || a.TimeoutSeconds > MaxAgentTimeout {
		fe.add("timeoutSeconds", "The timeoutSeconds must be between 1 and "+strconv.Itoa(MaxAgentTimeout)+".")
	}
	if headers == nil {
		return
	}
	if len(headers) > MaxAgentHeaders {
		fe.add("integrationMeta.headers", "The integrationMeta.headers may not have more than "+strconv.Itoa(MaxAgentHeaders)+" headers.")
		return
	}
	for k, v := range headers {
		switch {
		case !validHeaderName(k):
			fe.add("integrationMeta.headers", "The header name "+brief(k)+" is not a valid HTTP header name.")
		case reservedAgentHeader(k):
			fe.add("integrationMeta.headers", "The header "+brief(k)+" is natter's to set.")
		case len(v) > MaxAgentHeaderLen || strings.ContainsAny(v, "\r\n\x00"):
			fe.add("integrationMeta.headers", "The value of the header "+brief(k)+" must be at most "+strconv.Itoa(MaxAgentHeaderLen)+" bytes on one line.")
		}
	}
}

// agentURL checks an agent's endpoint: an absolute https URL (http only where private
// addresses are allowed: a local agent in development and tests), a host, no credentials
// or fragment, and not a private address unless allowed. Names that resolve to private
// addresses are refused when calling, at connect time (internal/safedial).
func (s *Service) agentURL(fe fieldErrors, raw string) {
	const field = "integrationMeta.url"
	if raw == "" {
		fe.add(field, "The integrationMeta.url field is required: the agent's endpoint.")
		return
	}
	if len(raw) > MaxAgentURLLen {
		fe.add(field, "The integrationMeta.url may not be greater than "+strconv.Itoa(MaxAgentURLLen)+" characters.")
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http"):
		fe.add(field, "The integrationMeta.url must be an absolute https URL.")
	case u.Scheme == "http" && !s.cfg.WebhookAllowPrivate:
		fe.add(field, "The integrationMeta.url must be an https URL.")
	case u.User != nil:
		fe.add(field, "The integrationMeta.url may not carry credentials: use integrationMeta.headers.")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		fe.add(field, "The integrationMeta.url may not have a fragment.")
	case !s.cfg.WebhookAllowPrivate && PrivateHost(u.Hostname()):
		fe.add(field, "The integrationMeta.url names a loopback, private or link-local address, which this server does not call.")
	}
}

func validHeaderName(k string) bool {
	if k == "" || len(k) > 100 {
		return false
	}
	for _, c := range k {
		if c > 126 || c <= 32 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// reservedAgentHeader is a header natter sets on every call.
func reservedAgentHeader(k string) bool {
	switch textproto.CanonicalMIMEHeaderKey(k) {
	case "Content-Type", "Content-Length", "Accept", "Host", "User-Agent", "Transfer-Encoding", "Connection":
		return true
	}
	return strings.HasPrefix(textproto.CanonicalMIMEHeaderKey(k), "X-Natter-")
}

// sealAgentHeaders seals the headers for a's row and sets their names.
func (s *Service) sealAgentHeaders(ctx context.Context, a *Agent, headers map[string]string) error {
	a.Headers, a.HeaderNames = nil, []string{}
	if len(headers) == 0 {
		return nil
	}
	for k := range headers {
		a.HeaderNames = append(a.HeaderNames, k)
	}
	sort.Strings(a.HeaderNames)
	key, err := s.webhookKey(ctx)
	if err != nil {
		return internal("webhook key", err)
	}
	plain, _ := json.Marshal(headers)
	if a.Headers, err = seal(key, plain, aad(a.AppID, a.UID, "agent-headers")); err != nil {
		return internal("seal agent headers", err)
	}
	return nil
}

// AgentHeaders opens an agent's headers, for the worker's call.
func (s Agents) AgentHeaders(ctx context.Context, a Agent) (map[string]string, error) {
	if len(a.Headers) == 0 {
		return nil, nil
	}
	key, err := s.webhookKey(ctx)
	if err != nil {
		return nil, err
	}
	plain, err := open(key, a.Headers, aad(a.AppID, a.UID, "agent-headers"))
	if err != nil {
		return nil, err
	}
	var h map[string]string
	return h, json.Unmarshal(plain, &h)
}

// newAgentUID is a UUID v4, as the hosted service makes an agent's uid.
func newAgentUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// CreateAgent creates an agent. Its uid names its bot user: an existing active user is
// bound as it is; otherwise the user is created with the agent's name and icon. Without a
// uid natter makes one (a UUID, as the hosted service does).
func (s Agents) CreateAgent(ctx context.Context, p Principal, in AgentCreate) (Agent, error) {
	fe := fieldErrors{}
	a := Agent{AppID: p.App.ID, Name: in.Name, Icon: in.Icon, IsActive: true, IntegrateWith: in.IntegrateWith,
		IntegrationType: in.IntegrationType, URL: in.URL, Instruction: in.Instruction,
		HistoryLength: DefaultAgentHistory, TimeoutSeconds: DefaultAgentTimeout}
	if in.UID == "" {
		a.UID = newAgentUID()
	} else {
		a.UID = fe.id("uid", in.UID, true)
	}
	if a.IntegrationType == "" {
		a.IntegrationType = IntegrationAgent
	}
	if in.IsActive != nil {
		a.IsActive = *in.IsActive
	}
	if in.HistoryLength != nil {
		a.HistoryLength = *in.HistoryLength
	}
	if in.TimeoutSeconds != nil {
		a.TimeoutSeconds = *in.TimeoutSeconds
	}
	if in.Metadata != nil && string(in.Metadata) != "null" {
		a.Metadata = fe.metadata("metaData", in.Metadata)
	}
	s.agentFields(fe, &a, in.Headers)
	if err := fe.err(); err != nil {
		return Agent{}, err
	}
	a.CreatedAt = s.now()
	a.UpdatedAt = a.CreatedAt
	if err := s.sealAgentHeaders(ctx, &a, in.Headers); err != nil {
		return Agent{}, err
	}
	var newUser *User
	u, err := s.store.User(ctx, p.App.ID, a.UID)
	switch {
	case errors.Is(err, ErrNotFound):
		newUser = &User{AppID: p.App.ID, UID: a.UID, Name: a.Name, Avatar: a.Icon, Role: DefaultRole, Status: "offline", CreatedAt: a.CreatedAt}
	case err != nil:
		return Agent{}, internal("read agent user", err)
	case !u.Active():
		return Agent{}, Errorf(CodeAgentCreationFailed, "The user %s is deactivated: reactivate it, or give the agent another uid.", a.UID)
	}
	if n, err := s.store.Agents(ctx, p.App.ID); err != nil {
		return Agent{}, internal("count agents", err)
	} else if len(n) >= MaxAgentsPerApp {
		return Agent{}, Errorf(CodeAgentCreationFailed, "The app has %d agents, the most it may have.", MaxAgentsPerApp)
	}
	changes := []*Change{agentChange(p.App.ID, a.UID)}
	if newUser != nil {
		changes = append(changes, userChange(p.App.ID, a.UID))
	}
	err = s.write(ctx, func(ctx context.Context) error { return s.store.CreateAgent(ctx, a, newUser) }, changes...)
	if errors.Is(err, ErrAlreadyExists) {
		return Agent{}, Errorf(CodeAgentCreationFailed, "The app already has an agent with uid %s.", a.UID)
	} else if err != nil {
		return Agent{}, internal("create agent", err)
	}
	s.agentsChanged(p.App.ID)
	return a, nil
}

// List lists the app's agents.
func (s Agents) List(ctx context.Context, p Principal) ([]Agent, error) {
	as, err := s.store.Agents(ctx, p.App.ID)
	if err != nil {
		return nil, internal("list agents", err)
	}
	return as, nil
}

// Agent reads one agent.
func (s Agents) Agent(ctx context.Context, p Principal, uid string) (Agent, error) {
	id, ok := NormalizeID(uid)
	if !ok {
		return Agent{}, errAgentNotFound("")
	}
	a, err := s.store.Agent(ctx, p.App.ID, id)
	if errors.Is(err, ErrNotFound) {
		return Agent{}, errAgentNotFound(id)
	}
	if err != nil {
		return Agent{}, internal("get agent", err)
	}
	return a, nil
}

// UpdateAgent changes an agent. Deactivating it drops its pending jobs.
func (s Agents) UpdateAgent(ctx context.Context, p Principal, uid string, in AgentChange) (Agent, error) {
	a, err := s.Agent(ctx, p, uid)
	if err != nil {
		return Agent{}, err
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&a.Name, in.Name)
	set(&a.Icon, in.Icon)
	set(&a.IntegrateWith, in.IntegrateWith)
	set(&a.IntegrationType, in.IntegrationType)
	set(&a.URL, in.URL)
	set(&a.Instruction, in.Instruction)
	if in.IsActive != nil {
		a.IsActive = *in.IsActive
	}
	if in.HistoryLength != nil {
		a.HistoryLength = *in.HistoryLength
	}
	if in.TimeoutSeconds != nil {
		a.TimeoutSeconds = *in.TimeoutSeconds
	}
	fe := fieldErrors{}
	if in.Metadata != nil {
		if string(in.Metadata) == "null" {
			a.Metadata = nil
		} else {
			a.Metadata = fe.metadata("metaData", in.Metadata)
		}
	}
	s.agentFields(fe, &a, in.Headers)
	if err := fe.err(); err != nil {
		return Agent{}, err
	}
	if in.Headers != nil {
		if err := s.sealAgentHeaders(ctx, &a, in.Headers); err != nil {
			return Agent{}, err
		}
	}
	a.UpdatedAt = s.now()
	if err := s.write(ctx, func(ctx context.Context) error { return s.store.UpdateAgent(ctx, a) }, agentChange(p.App.ID, a.UID)); errors.Is(err, ErrNotFound) {
		return Agent{}, errAgentNotFound(a.UID)
	} else if err != nil {
		return Agent{}, internal("update agent", err)
	}
	s.agentsChanged(p.App.ID)
	return a, nil
}

// DeleteAgent deletes an agent and its pending jobs; its user stays, with its messages.
func (s Agents) DeleteAgent(ctx context.Context, p Principal, uid string) error {
	id, ok := NormalizeID(uid)
	if !ok {
		return errAgentNotFound("")
	}
	if err := s.write(ctx, func(ctx context.Context) error { return s.store.DeleteAgent(ctx, p.App.ID, id) }, agentChange(p.App.ID, id)); errors.Is(err, ErrNotFound) {
		return errAgentNotFound(id)
	} else if err != nil {
		return internal("delete agent", err)
	}
	s.agentsChanged(p.App.ID)
	return nil
}

// agentChange announces that the agent uid changed.
func agentChange(app, uid string) *Change {
	c := settingsChange(app, SettingAgents)
	c.UIDs = []string{uid}
	return c
}

// agentsChanged drops the app's cached agents on this node; other nodes see a change
// within the key cache's TTL.
func (s *Service) agentsChanged(appID string) { s.keys.agents.evict(appID) }

// appAgents maps the app's agents' uids to whether each is active, from a per-app cache as
// stale as the key cache at most: an app without agents pays a map lookup per send. When
// they cannot be read, no agent is woken (the send itself must not fail for it).
func (s *Service) appAgents(ctx context.Context, appID string) map[string]bool {
	c := s.keys.agents
	if v, ok := c.get(appID); ok {
		return v
	}
	gen := c.generation()
	m, err := s.store.AgentUIDs(ctx, appID)
	if err != nil {
		return nil
	}
	if m == nil {
		m = map[string]bool{}
	}
	c.put(appID, m, gen)
	return m
}

// AgentTargets decides which agents a message wakes: none for a bot's message (a user
// bound to any agent) or anything but a text message; in a one-to-one conversation the
// receiver when it is an active agent; in a group the active agents it mentions, in the
// order named, at most MaxAgentsPerMessage. agents maps the app's agents to whether each
// is active.
func AgentTargets(m *Message, agents map[string]bool) []string {
	if len(agents) == 0 {
		return nil
	}
	if _, bot := agents[m.Sender]; bot || m.Category != CategoryMessage || m.Type != "text" {
		return nil
	}
	if m.ReceiverType == ReceiverUser {
		if agents[m.Receiver] {
			return []string{m.Receiver}
		}
		return nil
	}
	var out []string
	for _, e := range m.Mentions {
		if agents[e.UID] && !slices.Contains(out, e.UID) && len(out) < MaxAgentsPerMessage {
			out = append(out, e.UID)
		}
	}
	return out
}

// agentJobs are the outbox rows of the agent jobs message m wakes; the store completes
// them with the message's id.
func (s *Service) agentJobs(ctx context.Context, m *Message) []OutboxEvent {
	var out []OutboxEvent
	for _, uid := range AgentTargets(m, s.appAgents(ctx, m.AppID)) {
		out = append(out, OutboxEvent{Kind: EventAgentJob, AppID: m.AppID, ConversationID: m.ConversationID, Agent: uid, At: time.Now().UnixMilli()})
	}
	return out
}

// workOf is the worker queues events go to: the webhook deliverer's for a webhook's event,
// the agent workers' for an agent job, the notification workers' for a notification event.
func workOf(events []OutboxEvent) Work {
	var w Work
	for _, ev := range events {
		w |= ev.Kind.Work()
	}
	return w
}

// AgentJobs is the store the agent workers use.
func (s Agents) AgentJobs() AgentStore { return s.store }
