package chat

import (
	"context"
	"errors"
	"strings"
)

// Region is a data-centre region code as it appears in hosts: us, eu or in.
type Region string

// Regions natter accepts, as on the hosted service.
var Regions = []Region{"us", "eu", "in"}

// ValidRegion reports whether r is a known region.
func ValidRegion(r Region) bool {
	for _, x := range Regions {
		if x == r {
			return true
		}
	}
	return false
}

// App is a tenant. Every other row belongs to exactly one app.
type App struct {
	ID        string
	Region    Region
	Name      string
	CreatedAt int64
}

// AppStore keeps apps.
type AppStore interface {
	// CreateApp creates an app and its first keys in one transaction.
	CreateApp(ctx context.Context, app App, keys []APIKey) error
	App(ctx context.Context, id string) (App, error)
	CountApps(ctx context.Context) (int, error)
}

// NewKey is a key as returned once at creation: the record and the secret value.
type NewKey struct {
	APIKey
	Value string
}

// AppCreate asks for a new app. FullAccessKey, when set, is used as the app's fullAccess key
// instead of a random one (NATTER_API_KEY on first start).
type AppCreate struct {
	ID            string
	Region        Region
	Name          string
	FullAccessKey string
}

// CreateApp creates an app with one fullAccess and one authOnly key.
func (s *Service) CreateApp(ctx context.Context, in AppCreate) (App, []NewKey, error) {
	in.ID = strings.ToLower(in.ID)
	in.Region = Region(strings.ToLower(string(in.Region)))
	fe := fieldErrors{}
	if !ValidAppID(in.ID) {
		fe.add("appId", "The appId must be 1 to 63 lowercase letters, digits or hyphens, starting with a letter or digit.")
	}
	if !ValidRegion(in.Region) {
		fe.add("region", "The region must be one of us, eu, in.")
	}
	if in.Name == "" {
		in.Name = in.ID
	}
	fe.text("name", in.Name, MaxNameLen, true)
	if in.FullAccessKey != "" && !validChosenKey(in.FullAccessKey) {
		fe.add("apiKey", "A chosen API key must be 16 to 256 visible ASCII characters (letters, digits, punctuation), without spaces.")
	}
	if err := fe.err(); err != nil {
		return App{}, nil, err
	}
	now := s.now()
	app := App{ID: in.ID, Region: in.Region, Name: in.Name, CreatedAt: now}
	full, fullValue := newAPIKey(app.ID, "Default REST API Key", ScopeFullAccess, now)
	if in.FullAccessKey != "" {
		fullValue = in.FullAccessKey
		full.Hash, full.Prefix, full.Suffix = HashKey(fullValue), fullValue[:4], fullValue[len(fullValue)-4:]
	}
	auth, authValue := newAPIKey(app.ID, "Default Auth Key", ScopeAuthOnly, now)
	err := s.write(ctx, func(ctx context.Context) error { return s.store.CreateApp(ctx, app, []APIKey{full, auth}) },
		settingsChange(app.ID, SettingApp))
	if errors.Is(err, ErrAlreadyExists) {
		return App{}, nil, &Error{Code: CodeBadRequest, Message: "The app \"" + app.ID + "\", or one of its keys, already exists.", Err: err}
	}
	if err != nil {
		return App{}, nil, internal("create app", err)
	}
	return app, []NewKey{{full, fullValue}, {auth, authValue}}, nil
}

// validChosenKey reports whether k can be an app's chosen key: 16 to 256 visible ASCII
// characters, so that it arrives intact as an apikey header from any HTTP client (servers
// trim spaces around header values, and clients differ on other bytes).
func validChosenKey(k string) bool {
	if len(k) < 16 || len(k) > 256 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '!' || k[i] > '~' {
			return false
		}
	}
	return true
}

// CountApps reports how many apps exist; serve creates the first one on an empty database.
func (s *Service) CountApps(ctx context.Context) (int, error) {
	n, err := s.store.CountApps(ctx)
	if err != nil {
		return 0, internal("count apps", err)
	}
	return n, nil
}
