package chat

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"regexp"
)

// Credentials are what a request says about who it is and which app it addresses: an API
// key (a server-side app), or a user's auth token (a client app).
type Credentials struct {
	APIKey string
	// ByToken is set when the request authenticates with an auth token; AuthToken is the
	// token, empty when the header was sent empty.
	ByToken   bool
	AuthToken string
	// AppID names the app from the host, or else from the appId header; empty means the
	// key's (or token's) own app. Region is set only when the host named it.
	AppID  string
	Region Region
}

// HashKey is the stored form of an API key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// NewAPIKeyValue returns a fresh 40-character lowercase hex key, as the hosted service issues.
func NewAPIKeyValue() string {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// newAPIKey builds the stored record of a fresh key.
func newAPIKey(appID, name string, scope Scope, now int64) (APIKey, string) {
	v := NewAPIKeyValue()
	return APIKey{AppID: appID, Hash: HashKey(v), Prefix: v[:4], Suffix: v[len(v)-4:], Name: name, Scope: scope, CreatedAt: now}, v
}

var appIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// ValidAppID reports whether id can name an app: a lowercase DNS label, since it is the
// first label of the app's host name.
func ValidAppID(id string) bool { return appIDPattern.MatchString(id) }

// Authenticate resolves the calling key or auth token and the app the request addresses.
func (s *Service) Authenticate(ctx context.Context, c Credentials) (Principal, error) {
	if c.ByToken {
		return s.authenticateToken(ctx, c)
	}
	if c.APIKey == "" {
		return Principal{}, Errorf(CodeEmptyAPIKey, "The apikey header is missing or empty.")
	}
	if len(c.APIKey) > 256 {
		return Principal{}, Errorf(CodeAPIKeyNotFound, "The API key sent with the request does not exist.")
	}
	hash := HashKey(c.APIKey)
	key, err := s.lookupKey(ctx, hash)
	if err != nil {
		return Principal{}, err
	}
	app, err := s.addressedApp(ctx, c, key.AppID, func() error {
		return Errorf(CodeAPIKeyNotFound, "The API key sent with the request does not exist for this app.")
	})
	if err != nil {
		return Principal{}, err
	}
	return Principal{App: app, KeyHash: key.Hash, Scope: key.Scope}, nil
}

// authenticateToken resolves a client app's auth token: the principal acts as the token's
// user, in the token's app.
func (s *Service) authenticateToken(ctx context.Context, c Credentials) (Principal, error) {
	if c.AuthToken == "" {
		return Principal{}, Errorf(CodeEmptyAuthToken, "The authToken header is missing or empty.")
	}
	if _, ok := tokenUID(c.AuthToken); !ok {
		return Principal{}, errAuthTokenUnknown()
	}
	hash := HashKey(c.AuthToken)
	tok, err := s.lookupToken(ctx, hash)
	if err != nil {
		return Principal{}, err
	}
	app, err := s.addressedApp(ctx, c, tok.AppID, func() error {
		return Errorf(CodeAuthTokenUnknown, "The auth token sent with the request does not exist for this app.")
	})
	if err != nil {
		return Principal{}, err
	}
	return Principal{App: app, TokenHash: tok.Hash, Actor: tok.UID}, nil
}

// addressedApp is the app a request addresses, given that its credential belongs to the app
// own: the host or appId header may name only that app (in its region). A request naming
// another app learns whether that app exists there only because it holds a valid
// credential; otherwise it is told notOwn.
func (s *Service) addressedApp(ctx context.Context, c Credentials, own string, notOwn func() error) (App, error) {
	app, err := s.lookupApp(ctx, own)
	if err != nil {
		return App{}, err
	}
	if c.AppID != "" && c.AppID != app.ID || c.Region != "" && c.Region != app.Region {
		named, err := s.lookupApp(ctx, c.AppID)
		if err != nil || c.Region != "" && named.Region != c.Region {
			return App{}, errAppNotFound(c.AppID)
		}
		return App{}, notOwn()
	}
	return app, nil
}

func errAuthTokenUnknown() error {
	return Errorf(CodeAuthTokenUnknown, "The auth token sent with the request does not exist.")
}

// lookupToken finds an auth token whose user is active, through the cache.
func (s *Service) lookupToken(ctx context.Context, hash string) (AuthToken, error) {
	tok, ok := s.keys.tokens.get(hash)
	if !ok {
		gen := s.keys.tokens.generation()
		var err error
		tok, err = s.store.AuthTokenByHash(ctx, hash)
		if errors.Is(err, ErrNotFound) {
			return AuthToken{}, errAuthTokenUnknown()
		}
		if err != nil {
			return AuthToken{}, internal("look up auth token", err)
		}
		s.keys.tokens.put(hash, tok, gen)
	}
	if subtle.ConstantTimeCompare([]byte(tok.Hash), []byte(hash)) != 1 {
		return AuthToken{}, errAuthTokenUnknown()
	}
	return tok, nil
}

func (s *Service) lookupKey(ctx context.Context, hash string) (APIKey, error) {
	key, ok := s.keys.keys.get(hash)
	if !ok {
		gen := s.keys.keys.generation()
		var err error
		key, err = s.store.APIKeyByHash(ctx, hash)
		if errors.Is(err, ErrNotFound) {
			return APIKey{}, Errorf(CodeAPIKeyNotFound, "The API key sent with the request does not exist.")
		}
		if err != nil {
			return APIKey{}, internal("look up api key", err)
		}
		s.keys.keys.put(hash, key, gen)
	}
	// The map lookup already matched; the constant-time compare keeps the check itself
	// free of timing differences should the lookup ever become a prefix or range scan.
	if subtle.ConstantTimeCompare([]byte(key.Hash), []byte(hash)) != 1 {
		return APIKey{}, Errorf(CodeAPIKeyNotFound, "The API key sent with the request does not exist.")
	}
	return key, nil
}

func (s *Service) lookupApp(ctx context.Context, id string) (App, error) {
	if app, ok := s.keys.apps.get(id); ok {
		return app, nil
	}
	gen := s.keys.apps.generation()
	app, err := s.store.App(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return App{}, errAppNotFound(id)
	}
	if err != nil {
		return App{}, internal("look up app", err)
	}
	s.keys.apps.put(id, app, gen)
	return app, nil
}

// errAppNotFound names the app only when its id is well-formed and not shaped like a key
// (echo.go): the id comes from the host or the appId header.
func errAppNotFound(id string) error {
	if !ValidAppID(id) || keyShaped(id) {
		return Errorf(CodeInvalidAppID, "The app does not exist in this region.")
	}
	return Errorf(CodeInvalidAppID, "The app %q does not exist in this region.", id)
}
