package chat

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
)

// Event is what connected clients learn of a change: one socket frame, already encoded,
// and who gets it. Events cross nodes as JSON (the PostgreSQL bus), hence the short names.
type Event struct {
	App string `json:"a"`
	// Users get the frame on every connection they hold; so do the members of Group, whom
	// each node resolves for the connections it holds.
	Users []string `json:"u,omitempty"`
	Group string   `json:"g,omitempty"`
	// Except is a uid that does not get it (a typist its own typing indicator).
	Except string `json:"x,omitempty"`
	// Presence marks a presence change of the user Presence: it goes to every connection of
	// the app whose presence subscription covers that user.
	Presence *PresenceOf     `json:"p,omitempty"`
	Frame    json.RawMessage `json:"f"`
}

// PresenceOf is the user a presence event is about, as subscriptions select it.
type PresenceOf struct {
	UID  string `json:"u"`
	Role string `json:"r,omitempty"`
}

// Bus carries events to the sockets of every node. Publish must not wait for delivery; the
// subscriber gets events one at a time, in the order the bus received them. SQLite's is
// LocalBus; PostgreSQL's uses LISTEN/NOTIFY (sqlstore); a larger deployment could put NATS
// or Redis behind the same three methods.
type Bus interface {
	Publish(ctx context.Context, e Event) error
	// Subscribe sets the one function events are handed to.
	Subscribe(fn func(Event))
	Close() error
}

// LocalBus is the in-process bus: one node, its own events.
type LocalBus struct {
	mu     sync.Mutex
	fn     func(Event)
	queue  chan Event
	done   chan struct{}
	closed bool
}

// localBusQueue bounds the events waiting for delivery; a publisher waits (within its
// context) when it is full rather than an event being dropped.
const localBusQueue = 4096

// NewLocalBus starts an in-process bus.
func NewLocalBus() *LocalBus {
	b := &LocalBus{queue: make(chan Event, localBusQueue), done: make(chan struct{})}
	go b.loop()
	return b
}

func (b *LocalBus) loop() {
	defer close(b.done)
	for e := range b.queue {
		b.mu.Lock()
		fn := b.fn
		b.mu.Unlock()
		if fn != nil {
			fn(e)
		}
	}
}

// Publish queues e for delivery.
func (b *LocalBus) Publish(ctx context.Context, e Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errors.New("bus closed")
	}
	select {
	case b.queue <- e:
		return nil
	default:
	}
	// Full: wait, still holding the lock so Close cannot close the channel under us.
	select {
	case b.queue <- e:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Subscribe sets the delivery function.
func (b *LocalBus) Subscribe(fn func(Event)) {
	b.mu.Lock()
	b.fn = fn
	b.mu.Unlock()
}

// Close stops the bus once the queued events are delivered.
func (b *LocalBus) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	<-b.done
	return nil
}

// RealtimeStore is what sockets need from storage: a group's members, the secret socket
// credentials are signed with, and presence.
type RealtimeStore interface {
	// MemberUIDs lists a group's members (not banned users).
	// Among, when not nil, limits the answer to those users: a node asks only about the
	// users it holds sockets of when they are fewer than the group's members may be.
	MemberUIDs(ctx context.Context, appID, guid string, among []string) ([]string, error)
	// SigningSecret returns the deployment's secret for socket credentials, creating it on
	// first use; every node of a deployment gets the same one.
	SigningSecret(ctx context.Context) ([]byte, error)
	// SetOnline records that node holds a connection of each listed user until expiresAt
	// and marks them available; it returns the users that were not available before.
	SetOnline(ctx context.Context, appID, node string, uids []string, now, expiresAt int64) ([]string, error)
	// SetOffline drops node's hold on the user; a user no node holds any more becomes
	// offline, last active at now, and is returned.
	SetOffline(ctx context.Context, appID, node string, uids []string, now int64) ([]string, error)
	// ExpirePresence drops every hold that expired before now (a node that died) and
	// returns, by app, the users that became offline.
	ExpirePresence(ctx context.Context, now int64) (map[string][]string, error)
}

// SocketTokenTTL is how long a socket credential from PUT /me stays valid. The client SDK
// keeps the one it got at login and reconnects with it, so it lives as long as a working
// day; it is refused at once when its auth token is deleted or flushed.
const SocketTokenTTL = 24 * time.Hour

// socketClaims are a socket credential's claims: a JWT (HS256) the SDK treats as opaque.
type socketClaims struct {
	App   string `json:"app"`
	UID   string `json:"sub"`
	Token string `json:"tok"` // the auth token's hash: revoking the token revokes this
	Iat   int64  `json:"iat"`
	Exp   int64  `json:"exp"`
}

var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// signingSecret is the deployment's socket secret, read once.
func (s *Service) signingSecret(ctx context.Context) ([]byte, error) {
	s.secretMu.Lock()
	defer s.secretMu.Unlock()
	if s.secret != nil {
		return s.secret, nil
	}
	secret, err := s.store.SigningSecret(ctx)
	if err != nil {
		return nil, err
	}
	s.secret = secret
	return secret, nil
}

// SocketToken issues the socket credential of a client app's session: a request made with
// an auth token.
func (s *Service) SocketToken(ctx context.Context, p Principal) (string, error) {
	if !p.ByToken() {
		return "", errNoAccess("Only a user's auth token gets a socket credential; send the authToken header.")
	}
	secret, err := s.signingSecret(ctx)
	if err != nil {
		return "", internal("signing secret", err)
	}
	now := s.cfg.Now()
	claims, _ := json.Marshal(socketClaims{App: p.App.ID, UID: p.Actor, Token: p.TokenHash, Iat: now.Unix(), Exp: now.Add(SocketTokenTTL).Unix()})
	body := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(claims)
	return body + "." + sign(secret, body), nil
}

func sign(secret []byte, body string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// errSocketAuth refuses a socket's credential.
func errSocketAuth(msg string) error { return Errorf(CodeAuthTokenUnknown, "%s", msg) }

// SocketPrincipal checks a socket credential for the app appID (empty: any) and returns the
// principal it stands for: the auth token's user, as long as the token exists.
func (s *Service) SocketPrincipal(ctx context.Context, appID, jwt string) (Principal, error) {
	if len(jwt) > 2048 {
		return Principal{}, errSocketAuth("The socket credential is not valid.")
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 || parts[0] != jwtHeader {
		return Principal{}, errSocketAuth("The socket credential is not valid.")
	}
	secret, err := s.signingSecret(ctx)
	if err != nil {
		return Principal{}, internal("signing secret", err)
	}
	if subtle.ConstantTimeCompare([]byte(sign(secret, parts[0]+"."+parts[1])), []byte(parts[2])) != 1 {
		return Principal{}, errSocketAuth("The socket credential is not valid.")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c socketClaims
	if err != nil || json.Unmarshal(raw, &c) != nil {
		return Principal{}, errSocketAuth("The socket credential is not valid.")
	}
	if s.now() >= c.Exp {
		return Principal{}, errSocketAuth("The socket credential has expired; log in again.")
	}
	if appID != "" && appID != c.App {
		return Principal{}, errSocketAuth("The socket credential is not valid for this app.")
	}
	tok, err := s.lookupToken(ctx, c.Token)
	if err != nil {
		return Principal{}, err
	}
	app, err := s.lookupApp(ctx, tok.AppID)
	if err != nil {
		return Principal{}, err
	}
	if tok.UID != c.UID || app.ID != c.App {
		return Principal{}, errSocketAuth("The socket credential is not valid.")
	}
	return Principal{App: app, TokenHash: tok.Hash, Actor: tok.UID}, nil
}

// Me is the acting user of a client app's session.
func (s *Service) Me(ctx context.Context, p Principal) (User, error) {
	if !p.ByToken() {
		return User{}, errNoAccess("This operation is for a user's session; send the authToken header.")
	}
	return s.User(ctx, p, p.Actor)
}

// Logout deletes the auth token the request was made with.
func (s *Service) Logout(ctx context.Context, p Principal, token string) error {
	if !p.ByToken() {
		return errNoAccess("This operation is for a user's session; send the authToken header.")
	}
	return s.DeleteAuthToken(ctx, p, p.Actor, token)
}

// GroupMemberUIDs lists a group's members for socket delivery; no access check: the event
// was decided by the operation that published it.
func (s *Service) GroupMemberUIDs(ctx context.Context, appID, guid string, among []string) ([]string, error) {
	return s.store.MemberUIDs(ctx, appID, guid, among)
}

// Presence is the presence side of the store, for the socket hub. A presence write changes
// users (status, lastActiveAt), so it announces them on the feed as any user change does.
func (s *Service) Presence() RealtimeStore { return presence{s} }

// presenceChange is a change of the users' presence alone (Subject PresenceSubject).
func presenceChange(app string, uids ...string) *Change {
	return &Change{Kind: ChangeUser, App: app, UIDs: uids, Subject: PresenceSubject}
}

// PresenceSubject marks a ChangeUser that changed nothing but presence (status,
// lastActiveAt): what a user's memberships and blocks are stays as it was.
const PresenceSubject = "presence"

// presence is the store's RealtimeStore whose writes announce their changes.
type presence struct{ s *Service }

func (p presence) MemberUIDs(ctx context.Context, appID, guid string, among []string) ([]string, error) {
	return p.s.store.MemberUIDs(ctx, appID, guid, among)
}

func (p presence) SigningSecret(ctx context.Context) ([]byte, error) {
	return p.s.store.SigningSecret(ctx)
}

// SetOnline announces the users it was asked about: which of them changed is known only
// once the store has logged the change.
func (p presence) SetOnline(ctx context.Context, appID, node string, uids []string, now, expiresAt int64) (changed []string, err error) {
	err = p.s.write(ctx, func(ctx context.Context) error {
		changed, err = p.s.store.SetOnline(ctx, appID, node, uids, now, expiresAt)
		return err
	}, presenceChange(appID, uids...))
	return changed, err
}

func (p presence) SetOffline(ctx context.Context, appID, node string, uids []string, now int64) (changed []string, err error) {
	err = p.s.write(ctx, func(ctx context.Context) error {
		changed, err = p.s.store.SetOffline(ctx, appID, node, uids, now)
		return err
	}, presenceChange(appID, uids...))
	return changed, err
}

// ExpirePresence announces a change of users of every app (App empty): what expired is
// known only afterwards, and it is rare (a node that died).
func (p presence) ExpirePresence(ctx context.Context, now int64) (gone map[string][]string, err error) {
	err = p.s.write(ctx, func(ctx context.Context) error {
		gone, err = p.s.store.ExpirePresence(ctx, now)
		return err
	}, presenceChange(""))
	return gone, err
}

// Now is the service's clock in seconds.
func (s *Service) Now() int64 { return s.now() }

// IsMember reports whether uid is a member of guid (a banned user is not).
func (s *Service) IsMember(ctx context.Context, appID, guid, uid string) (bool, error) {
	m, err := s.member(ctx, appID, guid, uid)
	return m.Joined() && !m.Banned, err
}

// MayReach reports whether uid may send typing indicators and transient messages to the
// user to: neither has blocked the other, as for messages.
func (s *Service) MayReach(ctx context.Context, appID, uid, to string) (bool, error) {
	ab, ba, err := s.cachedBlocks(ctx, appID, uid, to)
	return !ab && !ba, err
}

// FriendUIDs lists the acting user's friends, for a socket's presence subscription.
func (s *Service) FriendUIDs(ctx context.Context, p Principal) ([]string, error) {
	us, _, err := s.ListFriends(ctx, p.ActingAs(""), p.Actor, UserQuery{Page: Page{PerPage: MaxFriends, Number: 1}})
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.UID
	}
	return out, err
}
