package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Limits of API keys.
const (
	MaxAPIKeyNameLen = 50
	MaxAPIKeysPerApp = 25
)

// Scope is an API key's power.
type Scope string

const (
	ScopeFullAccess Scope = "fullAccess"
	ScopeAuthOnly   Scope = "authOnly"
)

// APIKey is a stored key: its hash and the few characters shown in lists, never the key.
type APIKey struct {
	AppID     string
	Hash      string // hex SHA-256 of the key
	Prefix    string // first 4 characters
	Suffix    string // last 4 characters
	Name      string
	Scope     Scope
	CreatedAt int64
	UpdatedAt int64 // 0 until updated
}

// Masked is the key as lists show it: first and last four characters around asterisks.
func (k APIKey) Masked() string {
	return k.Prefix + "********************************" + k.Suffix
}

// APIKeyStore keeps API keys.
type APIKeyStore interface {
	// APIKeyByHash finds a key of any app; authentication uses it before the app is known.
	APIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	APIKey(ctx context.Context, appID, hash string) (APIKey, error)
	ListAPIKeys(ctx context.Context, appID string, q APIKeyQuery) ([]APIKey, int, error)
	UpdateAPIKey(ctx context.Context, appID, hash string, c APIKeyChange) (APIKey, error)
	DeleteAPIKey(ctx context.Context, appID, hash string) error
}

// APIKeyQuery filters a key list.
type APIKeyQuery struct {
	Scope     Scope
	SearchKey string
	Page      Page
}

// APIKeyCreate asks for a new key. Scope defaults to authOnly, as on the hosted service.
type APIKeyCreate struct {
	Name  string
	Scope Scope
}

func (f fieldErrors) scope(field string, s Scope) {
	if s != ScopeAuthOnly && s != ScopeFullAccess {
		f.add(field, "The "+field+" must be one of authOnly, fullAccess.")
	}
}

// APIKeyTx is what creating a key needs inside its transaction.
type APIKeyTx interface {
	// LockApp holds the app until the transaction ends.
	LockApp(appID string) error
	CountAPIKeys(appID string) (int, error)
	InsertAPIKey(k APIKey) error
}

// CreateAPIKey creates a key for the caller's app, at most MaxAPIKeysPerApp per app.
func (s *Service) CreateAPIKey(ctx context.Context, p Principal, in APIKeyCreate) (NewKey, error) {
	if in.Scope == "" {
		in.Scope = ScopeAuthOnly
	}
	fe := fieldErrors{}
	fe.text("name", in.Name, MaxAPIKeyNameLen, true)
	fe.scope("scope", in.Scope)
	if err := fe.err(); err != nil {
		return NewKey{}, err
	}
	k, v := newAPIKey(p.App.ID, in.Name, in.Scope, s.now())
	err := s.transact(ctx, func(tx Tx, cs *Changes) error {
		cs.Add(settingsChange(p.App.ID, SettingAPIKeys))
		// The app stays locked until the key is in, so concurrent creates cannot both pass
		// the count.
		if err := tx.LockApp(p.App.ID); err != nil {
			return err
		}
		n, err := tx.CountAPIKeys(p.App.ID)
		if err != nil {
			return err
		}
		if n >= MaxAPIKeysPerApp {
			return InvalidField("apiKey", fmt.Sprintf("An app may have at most %d API keys; delete one first.", MaxAPIKeysPerApp))
		}
		return tx.InsertAPIKey(k)
	})
	if ErrorCode(err) != "" {
		return NewKey{}, err
	}
	if err != nil {
		return NewKey{}, internal("create api key", err)
	}
	return NewKey{k, v}, nil
}

// APIKey returns the key named by its value.
func (s *Service) APIKey(ctx context.Context, p Principal, value string) (APIKey, error) {
	k, err := s.store.APIKey(ctx, p.App.ID, HashKey(value))
	if errors.Is(err, ErrNotFound) {
		return APIKey{}, errAPIKeyNotFound()
	}
	if err != nil {
		return APIKey{}, internal("get api key", err)
	}
	return k, nil
}

func errAPIKeyNotFound() error {
	return Errorf(CodeAPIKeyPathNotFound, "The API key does not exist.")
}

// ListAPIKeys lists the app's keys.
func (s *Service) ListAPIKeys(ctx context.Context, p Principal, f APIKeyQuery) ([]APIKey, int, error) {
	fe := fieldErrors{}
	if f.Scope != "" {
		fe.scope("scope", f.Scope)
	}
	fe.text("searchKey", f.SearchKey, MaxSearchKeyLen, false)
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	keys, total, err := s.store.ListAPIKeys(ctx, p.App.ID, f)
	if err != nil {
		return nil, 0, internal("list api keys", err)
	}
	return keys, total, nil
}

// APIKeyChange is a partial update of a key: nil fields are left alone. The service sets
// UpdatedAt.
type APIKeyChange struct {
	Name      *string
	Scope     *Scope
	UpdatedAt int64
}

// UpdateAPIKey renames or re-scopes a key other than the caller's own.
func (s *Service) UpdateAPIKey(ctx context.Context, p Principal, value string, in APIKeyChange) (APIKey, error) {
	hash := HashKey(value)
	if hash == p.KeyHash {
		return APIKey{}, errNoSelfAction("update")
	}
	fe := fieldErrors{}
	if in.Name != nil {
		fe.text("name", *in.Name, MaxAPIKeyNameLen, true)
	}
	if in.Scope != nil {
		fe.scope("scope", *in.Scope)
	}
	if err := fe.err(); err != nil {
		return APIKey{}, err
	}
	in.UpdatedAt = s.now()
	var k APIKey
	err := s.write(ctx, func(ctx context.Context) (err error) {
		k, err = s.store.UpdateAPIKey(ctx, p.App.ID, hash, in)
		return err
	}, settingsChange(p.App.ID, SettingAPIKeys))
	if errors.Is(err, ErrNotFound) {
		return APIKey{}, errAPIKeyNotFound()
	}
	if err != nil {
		return APIKey{}, internal("update api key", err)
	}
	s.keys.evictKey(hash)
	return k, nil
}

// DeleteAPIKey deletes a key other than the caller's own. It stops working on this node at
// once and on other nodes within the key cache's TTL.
func (s *Service) DeleteAPIKey(ctx context.Context, p Principal, value string) (APIKey, error) {
	return s.deleteAPIKey(ctx, p, HashKey(value))
}

func (s *Service) deleteAPIKey(ctx context.Context, p Principal, hash string) (APIKey, error) {
	if hash == p.KeyHash {
		return APIKey{}, errNoSelfAction("delete")
	}
	k, err := s.store.APIKey(ctx, p.App.ID, hash)
	if err == nil {
		err = s.write(ctx, func(ctx context.Context) error { return s.store.DeleteAPIKey(ctx, p.App.ID, hash) },
			settingsChange(p.App.ID, SettingAPIKeys))
	}
	if errors.Is(err, ErrNotFound) {
		return APIKey{}, errAPIKeyNotFound()
	}
	if err != nil {
		return APIKey{}, internal("delete api key", err)
	}
	s.keys.evictKey(hash)
	return k, nil
}

func errNoSelfAction(verb string) error {
	return Errorf(CodeAPIKeyNoSelfAction, "An API key cannot %s itself; use another fullAccess key.", verb)
}

// SearchKeyPattern escapes s for a LIKE prefix match with '\' as the escape character.
func SearchKeyPattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return strings.ToLower(r.Replace(s)) + "%"
}
