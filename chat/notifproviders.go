package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Notification providers (issue 17, docs/notifications.md): the services natter hands an
// app's notifications to. Push goes through FCM and APNs, several providers of each per app
// with exactly one the default while any exists; SMS through Twilio, email through SendGrid,
// one each per app; and each channel may instead call a custom webhook. A provider's
// credential (a private key, an auth token, an API key, a Basic-auth password) is sealed
// with the webhook key (webhookcrypto.go), bound to its app, provider and purpose, and never
// answered: answers show SecretHint's masked form, or nothing for keys. The delivery
// (notify, slice 3) opens them through NotificationSource (notifsource.go).

// ProviderKind is what sort of provider a row is.
type ProviderKind string

// The kinds. FCM and APNs providers have ids; an app has at most one of each other kind.
const (
	ProviderFCM         ProviderKind = "fcm"
	ProviderAPNs        ProviderKind = "apns"
	ProviderTwilio      ProviderKind = "twilio"
	ProviderSendGrid    ProviderKind = "sendgrid"
	ProviderCustomPush  ProviderKind = "custom_push"
	ProviderCustomSMS   ProviderKind = "custom_sms"
	ProviderCustomEmail ProviderKind = "custom_email"
)

// name is how messages name the kind.
func (k ProviderKind) name() string {
	switch k {
	case ProviderFCM:
		return "FCM"
	case ProviderAPNs:
		return "APNs"
	case ProviderTwilio:
		return "Twilio"
	case ProviderSendGrid:
		return "SendGrid"
	}
	return "custom " + strings.TrimPrefix(string(k), "custom_")
}

// purpose binds a kind's sealed credential to what it is (aad), so that one kind's sealed
// value never opens as another's.
func (k ProviderKind) purpose() string {
	switch k {
	case ProviderFCM:
		return "fcm_private_key"
	case ProviderAPNs:
		return "apns_p8_key"
	case ProviderTwilio:
		return "twilio_auth_token"
	case ProviderSendGrid:
		return "sendgrid_api_key"
	}
	return string(k) + "_basic_password"
}

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

// --- the operations every kind shares ----------------------------------------------------

// sealSecret seals a provider's credential under its kind's purpose.
func sealSecret(key []byte, p *Provider, secret string) error {
	b, err := seal(key, []byte(secret), aad(p.AppID, p.ID, p.Kind.purpose()))
	if err != nil {
		return err
	}
	p.Secret, p.SecretHint = b, SecretHint(secret)
	if strings.HasPrefix(string(p.Kind), "custom_") {
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
	if (kind == ProviderFCM || kind == ProviderAPNs) && (id == "" || id == DefaultProviderID) {
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
func (s *Service) DeletePushProvider(ctx context.Context, p Principal, kind ProviderKind, id string) error {
	return s.deleteProvider(ctx, p.App.ID, kind, strings.ToLower(id))
}

// SetDefaultPushProvider makes an FCM or APNs provider its kind's default; the previous
// default stops being one in the same transaction.
func (s *Service) SetDefaultPushProvider(ctx context.Context, p Principal, kind ProviderKind, id string) error {
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
