package chat

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// The web console's sessions (docs/console.md): a signed, stateless value that the console
// keeps in an HTTP-only cookie. It names the app and the hash of the fullAccess key signed in
// with — never the key — so every request checks that key again, as the API does: deleting
// the key, or changing its scope, ends every session made with it. The signature uses a key
// derived from the deployment's server secret (server_secrets), so every node accepts every
// node's sessions and nothing is written per request.

// Console session lifetimes, unless the console is configured otherwise.
const (
	DefaultConsoleIdle = 30 * time.Minute
	DefaultConsoleMax  = 12 * time.Hour
)

// ConsoleSession is a signed-in console session.
type ConsoleSession struct {
	App  string `json:"app"`
	Key  string `json:"key"` // the fullAccess key's hash
	ID   string `json:"sid"` // random; the CSRF token is derived from it
	Iat  int64  `json:"iat"` // unix second of sign-in
	Seen int64  `json:"seen"`
}

// errConsoleSession refuses a console session that is missing, forged or over.
var errConsoleSession = Errorf(CodeNoAccess, "Sign in to the console.")

// ErrConsoleSession reports whether err is a refused console session.
func ErrConsoleSession(err error) bool { return errors.Is(err, errConsoleSession) }

// ConsoleSignIn checks an app id and an API key as the API does, and that the key may do
// everything (fullAccess), and starts a session.
func (s Console) ConsoleSignIn(ctx context.Context, appID, key string) (ConsoleSession, Principal, error) {
	appID = strings.ToLower(strings.TrimSpace(appID))
	if !ValidAppID(appID) {
		return ConsoleSession{}, Principal{}, Errorf(CodeInvalidAppID, "Enter the app's id: lowercase letters, digits and hyphens.")
	}
	p, err := s.Authenticate(ctx, Credentials{APIKey: strings.TrimSpace(key), AppID: appID})
	if err != nil {
		return ConsoleSession{}, Principal{}, err
	}
	if p.Scope != ScopeFullAccess {
		return ConsoleSession{}, Principal{}, errNoAccess("The console needs a fullAccess key; this one is authOnly.")
	}
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return ConsoleSession{}, Principal{}, internal("session id", err)
	}
	now := s.now()
	return ConsoleSession{App: p.App.ID, Key: p.KeyHash, ID: hex.EncodeToString(id[:]), Iat: now, Seen: now}, p, nil
}

// consoleKey is the console's signing key, derived from the server secret so that it signs
// nothing else's tokens (the socket's JWTs use the secret itself).
func (s *Service) consoleKey(ctx context.Context) ([]byte, error) {
	secret, err := s.signingSecret(ctx)
	if err != nil {
		return nil, internal("signing secret", err)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("natter console session v1"))
	return mac.Sum(nil), nil
}

// SealConsoleSession is the cookie value of a session, marked as seen now.
func (s Console) SealConsoleSession(ctx context.Context, cs ConsoleSession) (string, error) {
	key, err := s.consoleKey(ctx)
	if err != nil {
		return "", err
	}
	cs.Seen = s.now()
	b, _ := json.Marshal(cs)
	body := base64.RawURLEncoding.EncodeToString(b)
	return body + "." + sign(key, body), nil
}

// OpenConsoleSession checks a cookie value: its signature, that it was used within idle and
// began within max, and that its key still exists with full access in its app. It returns
// the session and the principal it acts as.
func (s Console) OpenConsoleSession(ctx context.Context, value string, idle, max time.Duration) (ConsoleSession, Principal, error) {
	body, mac, ok := strings.Cut(value, ".")
	if !ok || len(value) > 1024 {
		return ConsoleSession{}, Principal{}, errConsoleSession
	}
	key, err := s.consoleKey(ctx)
	if err != nil {
		return ConsoleSession{}, Principal{}, err
	}
	if !hmac.Equal([]byte(mac), []byte(sign(key, body))) {
		return ConsoleSession{}, Principal{}, errConsoleSession
	}
	var cs ConsoleSession
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || json.Unmarshal(raw, &cs) != nil {
		return ConsoleSession{}, Principal{}, errConsoleSession
	}
	if !cs.live(s.now(), idle, max) {
		return ConsoleSession{}, Principal{}, errConsoleSession
	}
	k, err := s.lookupKey(ctx, cs.Key)
	if ErrorCode(err) == CodeAPIKeyNotFound || err == nil && (k.AppID != cs.App || k.Scope != ScopeFullAccess) {
		return ConsoleSession{}, Principal{}, errConsoleSession
	}
	if err != nil {
		return ConsoleSession{}, Principal{}, err
	}
	app, err := s.lookupApp(ctx, cs.App)
	if ErrorCode(err) == CodeInvalidAppID { // the app is gone
		return ConsoleSession{}, Principal{}, errConsoleSession
	}
	if err != nil {
		return ConsoleSession{}, Principal{}, err
	}
	return cs, Principal{App: app, KeyHash: k.Hash, Scope: k.Scope}, nil
}

// live reports whether a session may still be used at unix second now: used within idle,
// begun within max, and not from the future (a minute's clock skew between nodes allowed).
func (cs ConsoleSession) live(now int64, idle, max time.Duration) bool {
	return cs.App != "" && cs.Key != "" && cs.ID != "" && cs.Iat <= cs.Seen &&
		now-cs.Seen <= int64(idle/time.Second) && now-cs.Iat <= int64(max/time.Second) && cs.Seen <= now+60
}

// ConsoleCSRF is the session's CSRF token: every form and htmx request of the console
// sends it, and the console refuses a state-changing request without it.
func (s Console) ConsoleCSRF(ctx context.Context, cs ConsoleSession) (string, error) {
	key, err := s.consoleKey(ctx)
	if err != nil {
		return "", err
	}
	return sign(key, "csrf:"+cs.ID), nil
}

// DayCount is the messages sent in one UTC day, and the requests refused over the app's
// rate limits.
type DayCount struct {
	Day         int64 // unix second the day starts
	Messages    int64
	RateLimited int64
}

// DailyMessages is the messages sent, and the requests refused over the rate limits, in each of the last days UTC days, today included,
// oldest first, from the usage roll-up (GET /stats/messages' figures).
func (s Console) DailyMessages(ctx context.Context, p Principal, days int) ([]DayCount, error) {
	if days < 1 || days > 31 {
		return nil, InvalidField("days", "The days must be from 1 to 31.")
	}
	if _, err := s.rollup.flush(ctx, s.store, false, ""); err != nil {
		return nil, internal("save usage", err)
	}
	today := floorDiv(s.now(), 86400) * 86400
	from := today - int64(days-1)*86400
	rows, err := s.store.UsageCounts(ctx, p.App.ID, from, today+86400)
	if err != nil {
		return nil, internal("read message stats", err)
	}
	return dailyCounts(rows, from, days), nil
}

// dailyCounts sums 5-minute buckets into the days days from the UTC day from; buckets
// outside them are left out.
func dailyCounts(rows []UsageCount, from int64, days int) []DayCount {
	out := make([]DayCount, days)
	for i := range out {
		out[i].Day = from + int64(i)*86400
	}
	for _, r := range rows {
		if i := (r.Bucket - from) / 86400; r.Bucket >= from && i < int64(days) {
			out[i].Messages += r.Messages
			out[i].RateLimited += r.RateLimited
		}
	}
	return out
}

// DeleteAPIKeyHash deletes a key named by its hash, as lists show keys (masked, with no
// value to name them by); otherwise as DeleteAPIKey.
func (s Console) DeleteAPIKeyHash(ctx context.Context, p Principal, hash string) (APIKey, error) {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return APIKey{}, errAPIKeyNotFound()
	}
	return s.deleteAPIKey(ctx, p, hash)
}

// DeleteAuthTokenHash deletes one of user uid's tokens named by its hash, as lists show
// tokens; otherwise as DeleteAuthToken.
func (s Console) DeleteAuthTokenHash(ctx context.Context, p Principal, uid, hash string) error {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return err
	}
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return errAuthTokenNotFound()
	}
	err = s.deleteAuthToken(ctx, p.App.ID, u.UID, hash)
	if errors.Is(err, ErrNotFound) {
		return errAuthTokenNotFound()
	}
	if err != nil {
		return internal("delete auth token", err)
	}
	s.keys.tokens.evict(hash)
	return nil
}

// ConsoleUser returns a user that is not deleted, deactivated or not: the console shows a
// deactivated user so that it can be reactivated.
func (s Console) ConsoleUser(ctx context.Context, p Principal, uid string) (User, error) {
	uid, ok := NormalizeID(uid)
	if !ok {
		return User{}, errUIDNotFound("")
	}
	u, err := s.store.User(ctx, p.App.ID, uid)
	if errors.Is(err, ErrNotFound) || err == nil && u.DeletedAt != 0 {
		return User{}, errUIDNotFound(uid)
	}
	if err != nil {
		return User{}, internal("get user", err)
	}
	return u, nil
}
