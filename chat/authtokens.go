package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Limits of auth tokens.
const (
	// MaxAuthTokensPerUser is natter's bound (the hosted service states none): every login
	// of the official SDK creates a token, so without one they would pile up. Creating one
	// more deletes the user's oldest.
	MaxAuthTokensPerUser = 100
	MaxPlatformLen       = 100
	MaxUserAgentLen      = 1000
	// tokenSecretLen is the part of a token after "{uid}_": a 10-digit creation time and
	// 30 random hex digits (120 bits), as the hosted service's tokens look.
	tokenSecretLen = 40
)

// AuthToken is a stored auth token: a user's credential for a client app. natter keeps its
// hash and the first and last four characters of its secret part, never the token.
type AuthToken struct {
	AppID     string
	UID       string
	Hash      string // hex SHA-256 of the token
	Prefix    string // first 4 characters after "{uid}_"
	Suffix    string // last 4 characters
	Platform  string
	UserAgent string
	AppInfo   json.RawMessage // compact JSON object, or nil
	CreatedAt int64
}

// Masked is the token as lists show it: "{uid}_", then the first and last four characters of
// its secret part around asterisks.
func (t AuthToken) Masked() string {
	return t.UID + "_" + t.Prefix + "********************************" + t.Suffix
}

// NewAuthToken is a token as returned when it is made: the record and the token itself.
type NewAuthToken struct {
	AuthToken
	Value string
}

// newAuthToken makes a token for uid: "{uid}_{10-digit time}{30 hex digits}".
func newAuthToken(appID, uid string, now int64) (AuthToken, string) {
	var b [15]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	secret := strconv.FormatInt(now, 10)
	secret = strings.Repeat("0", max(0, 10-len(secret))) + secret + hex.EncodeToString(b[:])
	v := uid + "_" + secret
	return AuthToken{AppID: appID, UID: uid, Hash: HashKey(v), Prefix: secret[:4], Suffix: secret[len(secret)-4:], CreatedAt: now}, v
}

// tokenUID returns the uid a token names, and whether the token has a token's shape at all:
// a valid lower-case uid, "_", and 40 lower-case hex digits. Anything else is not looked up.
func tokenUID(v string) (string, bool) {
	i := len(v) - tokenSecretLen - 1
	if i < 1 || i > MaxIDLen || v[i] != '_' {
		return "", false
	}
	for _, c := range []byte(v[i+1:]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	uid := v[:i]
	if id, ok := NormalizeID(uid); !ok || id != uid {
		return "", false
	}
	return uid, true
}

// AuthTokenStore keeps auth tokens.
type AuthTokenStore interface {
	// AuthTokenByHash finds a token of any app whose user is active (neither deactivated nor
	// deleted); authentication uses it before the app is known.
	AuthTokenByHash(ctx context.Context, hash string) (AuthToken, error)
	AuthToken(ctx context.Context, appID, uid, hash string) (AuthToken, error)
	// ListAuthTokens pages a user's tokens, oldest first.
	ListAuthTokens(ctx context.Context, appID, uid string, p Page) ([]AuthToken, int, error)
	UpdateAuthToken(ctx context.Context, appID, uid, hash string, c AuthTokenChange) (AuthToken, error)
	DeleteAuthToken(ctx context.Context, appID, uid, hash string) error
	// FlushAuthTokens deletes every token of the user and reports how many there were.
	FlushAuthTokens(ctx context.Context, appID, uid string) (int, error)
	// CreateUserWithAuthToken creates a user (as UserStore.CreateUser) and its first token
	// in one transaction.
	CreateUserWithAuthToken(ctx context.Context, u User, t AuthToken) error
}

// AuthTokenTx is what creating a token needs inside its transaction.
type AuthTokenTx interface {
	InsertAuthToken(t AuthToken) error
	// TrimAuthTokens deletes the user's oldest tokens beyond the newest keep and returns
	// their hashes.
	TrimAuthTokens(appID, uid string, keep int) ([]string, error)
}

// AuthTokenCreate asks for a new token. Platform, UserAgent and AppInfo describe the client
// that logs in (the official SDK sends them); empty when absent.
type AuthTokenCreate struct {
	Force     bool
	Platform  string
	UserAgent string
	AppInfo   json.RawMessage
}

// AuthTokenChange is a partial update of a token's description: nil fields, and an AppInfo
// that is nil or "null", are left alone.
type AuthTokenChange struct {
	Platform  *string
	UserAgent *string
	AppInfo   json.RawMessage
}

func (f fieldErrors) client(platform, userAgent *string, appInfo json.RawMessage) json.RawMessage {
	if platform != nil {
		f.text("platform", *platform, MaxPlatformLen, false)
	}
	if userAgent != nil {
		f.text("userAgent", *userAgent, MaxUserAgentLen, false)
	}
	if appInfo != nil && string(appInfo) != "null" {
		return f.metadata("appInfo", appInfo)
	}
	return nil
}

// CreateAuthToken makes a new token for an active user. Tokens are kept hashed, so an
// existing one cannot be handed out again: every call makes a new token, with or without
// force (docs/api-decisions.md). Past MaxAuthTokensPerUser the user's oldest token is
// deleted, and stops working at once on this node and within the key cache's TTL elsewhere.
func (s *Service) CreateAuthToken(ctx context.Context, p Principal, uid string, in AuthTokenCreate) (NewAuthToken, error) {
	uid, ok := NormalizeID(uid)
	if !ok {
		return NewAuthToken{}, errUIDNotFound("")
	}
	fe := fieldErrors{}
	info := fe.client(&in.Platform, &in.UserAgent, in.AppInfo)
	if err := fe.err(); err != nil {
		return NewAuthToken{}, err
	}
	t, v := newAuthToken(p.App.ID, uid, s.now())
	t.Platform, t.UserAgent, t.AppInfo = in.Platform, in.UserAgent, info
	var trimmed []string
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(tokenChange(p.App.ID, uid))
		// The user stays locked until its token is in, so it cannot vanish under it and
		// concurrent creates trim one at a time.
		users, err := tx.LockUsers(p.App.ID, []string{uid})
		if err != nil {
			return err
		}
		if len(users) == 0 || !users[0].Active() {
			return errUIDNotFound(uid)
		}
		if err := tx.InsertAuthToken(t); err != nil {
			return err
		}
		trimmed, err = tx.TrimAuthTokens(p.App.ID, uid, MaxAuthTokensPerUser)
		return err
	})
	if ErrorCode(err) != "" {
		return NewAuthToken{}, err
	}
	if err != nil {
		return NewAuthToken{}, internal("create auth token", err)
	}
	for _, h := range trimmed {
		s.keys.tokens.evict(h)
	}
	return NewAuthToken{t, v}, nil
}

// tokenHash is the hash of a token named in the path of user uid's tokens; a value that is
// not a token of that uid is not found.
func tokenHash(uid, token string) (string, error) {
	if owner, ok := tokenUID(token); !ok || owner != uid {
		return "", errAuthTokenNotFound()
	}
	return HashKey(token), nil
}

func errAuthTokenNotFound() error {
	return Errorf(CodeAuthTokenNotFound, "The auth token does not exist for this user.")
}

// AuthToken returns user uid's token named by its value.
func (s *Service) AuthToken(ctx context.Context, p Principal, uid, token string) (AuthToken, error) {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return AuthToken{}, err
	}
	hash, err := tokenHash(u.UID, token)
	if err != nil {
		return AuthToken{}, err
	}
	t, err := s.store.AuthToken(ctx, p.App.ID, u.UID, hash)
	if errors.Is(err, ErrNotFound) {
		return AuthToken{}, errAuthTokenNotFound()
	}
	if err != nil {
		return AuthToken{}, internal("get auth token", err)
	}
	return t, nil
}

// ListAuthTokens lists an active user's tokens, oldest first.
func (s *Service) ListAuthTokens(ctx context.Context, p Principal, uid string, page Page) ([]AuthToken, int, error) {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return nil, 0, err
	}
	ts, total, err := s.store.ListAuthTokens(ctx, p.App.ID, u.UID, page)
	if err != nil {
		return nil, 0, internal("list auth tokens", err)
	}
	return ts, total, nil
}

// UpdateAuthToken changes what a token says about its client: platform, userAgent, appInfo.
func (s *Service) UpdateAuthToken(ctx context.Context, p Principal, uid, token string, in AuthTokenChange) (AuthToken, error) {
	fe := fieldErrors{}
	in.AppInfo = fe.client(in.Platform, in.UserAgent, in.AppInfo)
	if len(fe) == 0 && in.Platform == nil && in.UserAgent == nil && in.AppInfo == nil {
		fe.add("platform", "At least one of platform, userAgent and appInfo is required.")
	}
	if err := fe.err(); err != nil {
		return AuthToken{}, err
	}
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return AuthToken{}, err
	}
	hash, err := tokenHash(u.UID, token)
	if err != nil {
		return AuthToken{}, err
	}
	var t AuthToken
	err = s.write(ctx, func(ctx context.Context) (err error) {
		t, err = s.store.UpdateAuthToken(ctx, p.App.ID, u.UID, hash, in)
		return err
	}, tokenChange(p.App.ID, u.UID))
	if errors.Is(err, ErrNotFound) {
		return AuthToken{}, errAuthTokenNotFound()
	}
	if err != nil {
		return AuthToken{}, internal("update auth token", err)
	}
	return t, nil
}

// DeleteAuthToken deletes one of user uid's tokens. It stops working on this node at once
// and on other nodes within the key cache's TTL.
func (s *Service) DeleteAuthToken(ctx context.Context, p Principal, uid, token string) error {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return err
	}
	hash, err := tokenHash(u.UID, token)
	if err != nil {
		return err
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

// FlushAuthTokens deletes every token of an active user and returns the user's uid. They stop
// working on this node at once and on other nodes within the key cache's TTL.
func (s *Service) FlushAuthTokens(ctx context.Context, p Principal, uid string) (string, error) {
	u, err := s.User(ctx, p, uid)
	if err != nil {
		return "", err
	}
	err = s.write(ctx, func(ctx context.Context) error {
		_, err := s.store.FlushAuthTokens(ctx, p.App.ID, u.UID)
		return err
	}, tokenChange(p.App.ID, u.UID))
	if err != nil {
		return "", internal("flush auth tokens", err)
	}
	s.forgetTokens(p.App.ID, u.UID)
	return u.UID, nil
}

// deleteAuthToken deletes user uid's token by its hash.
func (s *Service) deleteAuthToken(ctx context.Context, appID, uid, hash string) error {
	return s.write(ctx, func(ctx context.Context) error { return s.store.DeleteAuthToken(ctx, appID, uid, hash) },
		tokenChange(appID, uid))
}

func tokenChange(app, uid string) *Change {
	return &Change{Kind: ChangeToken, App: app, UIDs: []string{uid}}
}

// forgetTokens drops the listed users' tokens from this node's cache: their tokens were
// deleted, or their users deactivated or deleted (AuthTokenByHash finds no token of an
// inactive user).
func (s *Service) forgetTokens(appID string, uids ...string) {
	if len(uids) == 0 {
		return
	}
	set := make(map[string]bool, len(uids))
	for _, u := range uids {
		set[u] = true
	}
	s.keys.tokens.evictIf(func(t AuthToken) bool { return t.AppID == appID && set[t.UID] })
}
