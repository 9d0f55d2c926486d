package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Notification providers (issue 17, docs/notifications.md): the services natter hands an
// app's notifications to. Push goes through FCM and APNs, several providers of each per app
// with exactly one the default while any exists; SMS through Twilio, email through SendGrid,
// one each per app; and each channel may instead call a custom webhook. A provider's
// credential (a private key, an auth token, an API key, a Basic-auth password) is sealed
// with the webhook key (webhookcrypto.go), bound to its app, provider and purpose, and never
// answered: answers show SecretHint's masked form, or nothing for keys. The delivery
// (notify, slice 3) opens them through the kind's descriptor (Providers.Credentials).

// ProviderKind is what sort of provider a row is. Each kind is one descriptor (Providers),
// registered in providerKinds: FCM and APNs in notifpush.go; Twilio, SendGrid and the
// custom webhooks (Custom) in notifchannels.go. Callers read and change an app's providers
// through the descriptor (chat.FCM.Create(ctx, svc, p, in)); adding a kind is adding its
// descriptor, with its settings, request, answer and credential types.
type ProviderKind string

// ProviderSpec is what the code every kind shares needs to know of a kind; the rest of it,
// its settings, requests and credentials, is its descriptor's.
type ProviderSpec struct {
	Kind    ProviderKind
	Name    string  // how messages name it: "FCM", "custom sms"
	Channel Channel // what it notifies through
	Log     string  // how the delivery log and the pending sends name it (LogProviderFCM, …)
	// IDs: an app has up to MaxPushProviders of the kind, each with its providerId, one of
	// them the default (FCM, APNs). Otherwise an app has one, with no id.
	IDs bool
	// Tokens are the push tokens the kind sends to.
	Tokens []PushTokenKind
	// Custom: the app's own webhook, whose credential is a Basic-auth password; the masked
	// form answers show of it shows nothing.
	Custom bool
	// purpose is what the kind's sealed credential is, bound into the seal (aad) so that one
	// kind's never opens as another's. Stored credentials are sealed under it: it never
	// changes.
	purpose string
}

var (
	providerKinds  = map[ProviderKind]*ProviderSpec{} // every kind, by register
	tokenProviders = map[PushTokenKind]ProviderKind{} // the kind that sends to each push token kind
)

// register adds a kind's descriptor to providerKinds.
func register[S, In, Out, Cred any](k *Providers[S, In, Out, Cred]) *Providers[S, In, Out, Cred] {
	providerKinds[k.Kind] = &k.ProviderSpec
	for _, t := range k.Tokens {
		tokenProviders[t] = k.Kind
	}
	return k
}

// spec is k's spec; a kind natter does not have is named as it is spelled.
func (k ProviderKind) spec() *ProviderSpec {
	if sp := providerKinds[k]; sp != nil {
		return sp
	}
	return &ProviderSpec{Kind: k, Name: string(k), purpose: string(k)}
}

// ProviderSpecOf is k's spec; false when natter has no such kind.
func ProviderSpecOf(k ProviderKind) (ProviderSpec, bool) {
	sp := providerKinds[k]
	if sp == nil {
		return ProviderSpec{}, false
	}
	out := *sp
	out.Tokens = slices.Clone(sp.Tokens)
	return out, true
}

// name is how messages name the kind.
func (k ProviderKind) name() string { return k.spec().Name }

// purpose is what the kind's sealed credential is (ProviderSpec.purpose).
func (k ProviderKind) purpose() string { return k.spec().purpose }

// Limits of providers.
const (
	MaxPushProviders   = 25 // FCM providers per app, and APNs providers per app
	MaxProviderIDLen   = 50
	DefaultProviderID  = "default" // a token's providerId meaning the kind's default provider when sending
	providerIDReserved = DefaultProviderID
)

// Provider is one stored provider. Settings is its kind's settings type (FCMSettings, …) as
// a JSON object, nothing secret in it; Secret is its credential sealed under its kind's
// purpose, and SecretHint the masked form answers show.
type Provider struct {
	AppID      string
	Kind       ProviderKind
	ID         string // FCM and APNs: the providerId; "" for the kinds an app has one of
	Default    bool   // FCM and APNs: the one a push token's "default" provider names
	Enabled    bool
	Settings   json.RawMessage
	Secret     []byte
	SecretHint string
	CreatedAt  int64
	UpdatedAt  int64
}

// ProviderStore reads providers. Every method scopes by app.
type ProviderStore interface {
	// Providers lists the app's providers of a kind, oldest first.
	Providers(ctx context.Context, appID string, kind ProviderKind) ([]Provider, error)
	// Provider reads one; ErrNotFound.
	Provider(ctx context.Context, appID string, kind ProviderKind, id string) (Provider, error)
	// DefaultProvider reads the kind's default provider; ErrNotFound when the app has none.
	DefaultProvider(ctx context.Context, appID string, kind ProviderKind) (Provider, error)
}

// ProviderTx changes providers inside a transaction, where the default rule is decided.
type ProviderTx interface {
	// LockProviders holds the app's providers of a kind until the transaction ends (it locks
	// the app's row, so that a first provider cannot be created twice at once) and lists
	// them, oldest first.
	LockProviders(appID string, kind ProviderKind) ([]Provider, error)
	// InsertProvider stores p; ErrAlreadyExists when the app has one of its kind and id.
	InsertProvider(p Provider) error
	// UpdateProvider writes p's flags, settings and secret; ErrNotFound.
	UpdateProvider(p Provider) error
	// SetDefaultProvider makes id the kind's only default provider; ErrNotFound.
	SetDefaultProvider(appID string, kind ProviderKind, id string) error
	// DeleteProvider removes one; ErrNotFound.
	DeleteProvider(appID string, kind ProviderKind, id string) error
}

// --- the default rule -------------------------------------------------------------------

// newProviderIsDefault is the default rule on create: the first provider of a kind is its
// default; later ones are not until PUT …/default/{providerId} makes them so.
func newProviderIsDefault(existing []Provider) bool { return len(existing) == 0 }

// deletableProvider is the default rule on delete: the default provider goes only when it
// is the last of its kind. Deleting it while others remain would either leave pushes to
// "default" nowhere to go or send them, unasked, to another project's provider (which would
// then report every token invalid); the app makes another one the default first.
func deletableProvider(kind ProviderKind, existing []Provider, id string) error {
	for _, p := range existing {
		if p.ID != id {
			continue
		}
		if p.Default && len(existing) > 1 {
			return &Error{Code: CodeBadRequest, Message: "The default " + p.Kind.name() + " provider cannot be deleted while the app has others: make another one the default first.",
				Details: map[string][]string{"providerId": {"The provider " + id + " is the default."}}}
		}
		return nil
	}
	return errProviderNotFound(kind, id)
}

func errProviderNotFound(kind ProviderKind, id string) error {
	if id == "" {
		return Errorf(CodeProviderNotFound, "The app has no %s provider.", kind.name())
	}
	return Errorf(CodeProviderNotFound, "The %s provider %s does not exist.", kind.name(), brief(id))
}

func errProviderExists(kind ProviderKind, id string) error {
	if id == "" {
		return Errorf(CodeProviderAlreadyExists, "The app has a %s provider already: update it with PUT.", kind.name())
	}
	return Errorf(CodeProviderAlreadyExists, "The %s provider %s already exists.", kind.name(), id)
}

// providerID checks and lower-cases a providerId: 1–50 letters, digits, _ and -, not the
// reserved "default".
func (f fieldErrors) providerID(v string) string {
	if len(v) > MaxProviderIDLen {
		f.add("providerId", "The providerId may not be greater than 50 characters.")
		return v
	}
	id := f.id("providerId", v, true)
	if id == providerIDReserved {
		f.add("providerId", "The providerId default is reserved: a push token's providerId default names the app's default provider.")
	}
	return id
}

// --- a kind's descriptor --------------------------------------------------------------------

// Providers is a kind's descriptor: its spec, and the steps that differ between kinds, on
// its settings S (stored as a JSON object), its requests In, its answers Out and its opened
// credentials Cred. What every kind does (list, read, create, update, open for the
// delivery) is its methods, the same for every kind.
type Providers[S, In, Out, Cred any] struct {
	ProviderSpec
	// id is the providerId a request names (kinds with ids); nil for the others.
	id func(in In) string
	// apply checks in and applies it to the settings st and to p (its enabled flag, a
	// credential it drops), and returns the credential to seal, "" when unchanged. create:
	// in must make a whole provider; otherwise it changes the fields it sets.
	apply func(s *Service, f fieldErrors, st *S, p *Provider, in In, create bool) (secret string)
	// kept is what an update's request alone is checked against, before the provider is
	// read: settings as if the provider kept all it may keep (and apply's p has a credential).
	kept S
	// out is a stored provider as answers show it.
	out func(p Provider, st S) Out
	// open is what the delivery needs to send through a provider: its answer and its opened
	// credential ("" when it has none).
	open func(out Out, secret string) (Cred, error)
}

// answer is p as answers show it.
func (k *Providers[S, In, Out, Cred]) answer(p Provider) (Out, error) {
	var st S
	if err := settingsOf(p, &st); err != nil {
		var zero Out
		return zero, err
	}
	return k.out(p, st), nil
}

// providerID is a request's providerId as stored: checked (on create, as a new one's), or
// "" for a kind without ids.
func (k *Providers[S, In, Out, Cred]) providerID(f fieldErrors, id string, create bool) string {
	switch {
	case !k.IDs:
		return ""
	case create:
		return f.providerID(id)
	}
	return f.id("providerId", id, true)
}

// requestID is the providerId in names; "" for a kind without ids.
func (k *Providers[S, In, Out, Cred]) requestID(in In) string {
	if k.id == nil {
		return ""
	}
	return k.id(in)
}

// List lists the app's providers of the kind, oldest first.
func (k *Providers[S, In, Out, Cred]) List(ctx context.Context, s *Service, p Principal) ([]Out, error) {
	ps, err := s.providers(ctx, p.App.ID, k.Kind)
	if err != nil {
		return nil, err
	}
	out := make([]Out, len(ps))
	for i, pr := range ps {
		if out[i], err = k.answer(pr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Get reads the app's provider of the kind: its one, or for a kind with ids its default.
func (k *Providers[S, In, Out, Cred]) Get(ctx context.Context, s *Service, p Principal) (Out, error) {
	pr, err := s.provider(ctx, p.App.ID, k.Kind, "")
	if err != nil {
		var zero Out
		return zero, err
	}
	return k.answer(pr)
}

// Create stores a provider of the kind from in, enabled unless in says otherwise. For a
// kind with ids, the app's first becomes its default.
func (k *Providers[S, In, Out, Cred]) Create(ctx context.Context, s *Service, p Principal, in In) (Out, error) {
	var zero Out
	fe := fieldErrors{}
	pr := Provider{AppID: p.App.ID, Kind: k.Kind, ID: k.providerID(fe, k.requestID(in), true), Enabled: true}
	var st S
	secret := k.apply(s, fe, &st, &pr, in, true)
	if err := fe.err(); err != nil {
		return zero, err
	}
	pr, err := s.createProvider(ctx, pr, st, secret)
	if err != nil {
		return zero, err
	}
	return k.answer(pr)
}

// Update changes the fields in sets of the app's provider of the kind (for a kind with ids,
// the one in names).
func (k *Providers[S, In, Out, Cred]) Update(ctx context.Context, s *Service, p Principal, in In) (Out, error) {
	var zero Out
	fe := fieldErrors{}
	id := k.providerID(fe, k.requestID(in), false)
	// The request alone first: a malformed one is refused before the provider is looked up.
	// What depends on the stored provider is checked against it below.
	kept := k.kept
	k.apply(s, fe, &kept, &Provider{Kind: k.Kind, Secret: []byte{}}, in, false)
	if err := fe.err(); err != nil {
		return zero, err
	}
	pr, err := s.changeProvider(ctx, p.App.ID, k.Kind, id, func(pr *Provider, key []byte) error {
		var st S
		if err := settingsOf(*pr, &st); err != nil {
			return err
		}
		fe := fieldErrors{}
		secret := k.apply(s, fe, &st, pr, in, false)
		if err := fe.err(); err != nil {
			return err
		}
		return pr.change(key, st, secret)
	})
	if err != nil {
		return zero, err
	}
	return k.answer(pr)
}

// Credentials reads the app's provider of the kind and opens its credential, for the
// delivery (notify): nothing it returns may be logged or answered. id is a push token's
// providerId for a kind with ids (DefaultProviderID, or "", is the default provider), and
// unused for the others. A provider the app does not have is CodeProviderNotFound; a
// credential that no longer opens (NATTER_WEBHOOK_KEY changed) an internal error. The
// provider may be disabled (a kind without ids): the delivery then sends nothing. A custom
// provider's URL passed the webhook URL rules when stored; the delivery must still refuse
// a name that resolves to a private address unless Config.WebhookAllowPrivate, as webhook
// delivery does at connect time.
func (k *Providers[S, In, Out, Cred]) Credentials(ctx context.Context, s *Service, appID, id string) (Out, Cred, error) {
	var zeroOut Out
	var zeroCred Cred
	if k.IDs {
		id = normalizedProviderID(id)
	}
	p, err := s.provider(ctx, appID, k.Kind, id)
	if err != nil {
		return zeroOut, zeroCred, err
	}
	out, err := k.answer(p)
	if err != nil {
		return zeroOut, zeroCred, err
	}
	secret, err := s.openSecret(ctx, p)
	if err != nil {
		return zeroOut, zeroCred, internal("open "+k.Name+" credential", err)
	}
	cred, err := k.open(out, secret)
	if err != nil {
		return zeroOut, zeroCred, internal("parse "+k.Name+" credential", err)
	}
	return out, cred, nil
}

// --- the operations every kind shares ----------------------------------------------------

// sealSecret seals a provider's credential under its kind's purpose.
func sealSecret(key []byte, p *Provider, secret string) error {
	b, err := seal(key, []byte(secret), aad(p.AppID, p.ID, p.Kind.purpose()))
	if err != nil {
		return err
	}
	p.Secret, p.SecretHint = b, SecretHint(secret)
	if p.Kind.spec().Custom {
		p.SecretHint = maskedSecret // a password shows nothing of itself
	}
	return nil
}

// change replaces a provider's settings, and its credential when secret is not "".
func (p *Provider) change(key []byte, settings any, secret string) error {
	raw, err := json.Marshal(settings)
	if err != nil {
		return internal("encode provider settings", err)
	}
	p.Settings = raw
	if secret != "" {
		if err := sealSecret(key, p, secret); err != nil {
			return internal("seal provider credential", err)
		}
	}
	return nil
}

// openSecret opens a provider's credential; "" when it has none.
func (s *Service) openSecret(ctx context.Context, p Provider) (string, error) {
	if p.Secret == nil {
		return "", nil
	}
	key, err := s.webhookKey(ctx)
	if err != nil {
		return "", err
	}
	b, err := open(key, p.Secret, aad(p.AppID, p.ID, p.Kind.purpose()))
	return string(b), err
}

// createProvider stores p, sealing secret, under the default rule and the cap of its kind.
func (s *Service) createProvider(ctx context.Context, p Provider, settings any, secret string) (Provider, error) {
	raw, err := json.Marshal(settings)
	if err != nil {
		return Provider{}, internal("encode provider settings", err)
	}
	key, err := s.webhookKey(ctx) // before the transaction: reading it may write it
	if err != nil {
		return Provider{}, internal("webhook key", err)
	}
	now := s.now()
	p.Settings, p.CreatedAt, p.UpdatedAt = raw, now, now
	if secret != "" {
		if err := sealSecret(key, &p, secret); err != nil {
			return Provider{}, internal("seal provider credential", err)
		}
	}
	defer s.providersChanged(p.AppID)
	err = s.transactSettings(ctx, p.AppID, SettingNotification, func(tx Tx) error {
		existing, err := tx.LockProviders(p.AppID, p.Kind)
		if err != nil {
			return err
		}
		if p.ID != "" && len(existing) >= MaxPushProviders {
			return Errorf(CodePlanQuotaRestriction, "An app may have at most %d %s providers.", MaxPushProviders, p.Kind.name())
		}
		p.Default = p.ID != "" && newProviderIsDefault(existing)
		return tx.InsertProvider(p)
	})
	switch {
	case errors.Is(err, ErrAlreadyExists):
		return Provider{}, errProviderExists(p.Kind, p.ID)
	case ErrorCode(err) != "":
		return Provider{}, err
	case err != nil:
		return Provider{}, internal("create provider", err)
	}
	return p, nil
}

// changeProvider applies change to the stored provider (kind, id) in one transaction and
// writes it. change may run more than once and must only change its argument; it seals
// with key, which is read before the transaction.
func (s *Service) changeProvider(ctx context.Context, appID string, kind ProviderKind, id string, change func(p *Provider, key []byte) error) (Provider, error) {
	key, err := s.webhookKey(ctx)
	if err != nil {
		return Provider{}, internal("webhook key", err)
	}
	var out Provider
	defer s.providersChanged(appID)
	err = s.transactSettings(ctx, appID, SettingNotification, func(tx Tx) error {
		existing, err := tx.LockProviders(appID, kind)
		if err != nil {
			return err
		}
		for _, p := range existing {
			if p.ID == id {
				if err := change(&p, key); err != nil {
					return err
				}
				p.UpdatedAt = s.now()
				out = p
				return tx.UpdateProvider(p)
			}
		}
		return errProviderNotFound(kind, id)
	})
	switch {
	case ErrorCode(err) != "":
		return Provider{}, err
	case err != nil:
		return Provider{}, internal("update provider", err)
	}
	return out, nil
}

// deleteProvider removes a provider under the default rule.
func (s *Service) deleteProvider(ctx context.Context, appID string, kind ProviderKind, id string) error {
	defer s.providersChanged(appID)
	err := s.transactSettings(ctx, appID, SettingNotification, func(tx Tx) error {
		existing, err := tx.LockProviders(appID, kind)
		if err != nil {
			return err
		}
		if err := deletableProvider(kind, existing, id); err != nil {
			return err
		}
		return tx.DeleteProvider(appID, kind, id)
	})
	switch {
	case ErrorCode(err) != "":
		return err
	case errors.Is(err, ErrNotFound):
		return errProviderNotFound(kind, id)
	case err != nil:
		return internal("delete provider", err)
	}
	return nil
}

// providers lists the app's providers of a kind.
func (s *Service) providers(ctx context.Context, appID string, kind ProviderKind) ([]Provider, error) {
	ps, err := s.store.Providers(ctx, appID, kind)
	if err != nil {
		return nil, internal("list providers", err)
	}
	return ps, nil
}

// provider reads one provider; id DefaultProviderID (or "" for FCM and APNs) is the kind's
// default.
func (s *Service) provider(ctx context.Context, appID string, kind ProviderKind, id string) (Provider, error) {
	var p Provider
	var err error
	if kind.spec().IDs && (id == "" || id == DefaultProviderID) {
		p, err = s.store.DefaultProvider(ctx, appID, kind)
		id = DefaultProviderID
	} else {
		p, err = s.store.Provider(ctx, appID, kind, id)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		if id == DefaultProviderID {
			return Provider{}, Errorf(CodeProviderNotFound, "The app has no default %s provider.", kind.name())
		}
		return Provider{}, errProviderNotFound(kind, id)
	case err != nil:
		return Provider{}, internal("read provider", err)
	}
	return p, nil
}

// settingsOf decodes a stored provider's settings into v.
func settingsOf(p Provider, v any) error {
	if err := json.Unmarshal(p.Settings, v); err != nil {
		return internal("decode provider settings", fmt.Errorf("%s %s: %w", p.Kind, p.ID, err))
	}
	return nil
}

// DeletePushProvider removes an FCM or APNs provider. The default one goes only when it is
// the last of its kind (deletableProvider). Push tokens that name it stay: sending to them
// is refused, and logged, until they are registered again.
func (s Notifications) DeletePushProvider(ctx context.Context, p Principal, kind ProviderKind, id string) error {
	return s.deleteProvider(ctx, p.App.ID, kind, strings.ToLower(id))
}

// SetDefaultPushProvider makes an FCM or APNs provider its kind's default; the previous
// default stops being one in the same transaction.
func (s Notifications) SetDefaultPushProvider(ctx context.Context, p Principal, kind ProviderKind, id string) error {
	id = strings.ToLower(id)
	err := s.transactSettings(ctx, p.App.ID, SettingNotification, func(tx Tx) error {
		existing, err := tx.LockProviders(p.App.ID, kind)
		if err != nil {
			return err
		}
		for _, pr := range existing {
			if pr.ID == id {
				return tx.SetDefaultProvider(p.App.ID, kind, id)
			}
		}
		return errProviderNotFound(kind, id)
	})
	switch {
	case ErrorCode(err) != "":
		return err
	case err != nil:
		return internal("set default provider", err)
	}
	return nil
}
