package chat

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/natter-chat/natter/internal/publicaddr"
)

// Webhooks (natter's own management API; the hosted service configures them in its
// dashboard): an app's endpoints, the triggers each subscribes to, optional Basic auth and a
// signing secret. Every change a subscribed webhook must hear about writes an outbox event in
// its own transaction (webhookevents.go); the webhook package delivers them.

// Limits of webhooks (API-reference §7: URL ≤255, id ≤50, basic user ≤50, password ≤100).
const (
	MaxWebhooks         = 25
	MaxWebhookURLLen    = 255
	MaxWebhookIDLen     = 50
	MaxWebhookUserLen   = 50
	MaxWebhookPassLen   = 100
	DefaultSecretRotate = 24 * time.Hour // how long the previous secret keeps signing
	MaxSecretRotate     = 7 * 24 * time.Hour
	signingSecretPrefix = "whsec_"
)

// Triggers are the webhook events of API-reference §7 a webhook may subscribe to. natter
// emits those in EmittedTriggers; the others are accepted so a subscription made now starts
// receiving when natter learns to emit them.
var Triggers = []string{
	TriggerMessageSent, TriggerMessageEdited, TriggerMessageDeleted,
	TriggerDeliveryReceipt, TriggerReadReceipt, TriggerDeliveredToAll, TriggerReadByAll,
	TriggerReactionAdded, TriggerReactionRemoved, TriggerUserMentioned,
	TriggerUserBlocked, TriggerUserUnblocked, TriggerConnectionStatus,
	TriggerGroupCreated, TriggerGroupUpdated, TriggerGroupDeleted, TriggerMemberAdded, TriggerMemberRemoved,
	TriggerMemberBanned, TriggerMemberUnbanned, TriggerMemberJoined, TriggerMemberLeft,
	TriggerMemberKicked, TriggerMemberScopeChanged, TriggerOwnerTransferred,
	TriggerModerationEngineApproved, TriggerModerationEngineBlocked, TriggerModerationManualApproved,
	TriggerCallInitiated, TriggerCallStarted, TriggerCallEnded, TriggerCallParticipantJoined, TriggerCallParticipantLeft,
	TriggerCallBusy, TriggerCallCancelled, TriggerCallRejected, TriggerCallUnanswered,
}

// The triggers.
const (
	TriggerMessageSent        = "message_sent"
	TriggerMessageEdited      = "message_edited"
	TriggerMessageDeleted     = "message_deleted"
	TriggerDeliveryReceipt    = "message_delivery_receipt"
	TriggerReadReceipt        = "message_read_receipt"
	TriggerDeliveredToAll     = "message_delivered_to_all"
	TriggerReadByAll          = "message_read_by_all"
	TriggerReactionAdded      = "message_reaction_added"
	TriggerReactionRemoved    = "message_reaction_removed"
	TriggerUserMentioned      = "user_mentioned"
	TriggerUserBlocked        = "user_blocked"
	TriggerUserUnblocked      = "user_unblocked"
	TriggerConnectionStatus   = "user_connection_status_changed"
	TriggerGroupCreated       = "group_created"
	TriggerGroupUpdated       = "group_updated"
	TriggerGroupDeleted       = "group_deleted"
	TriggerMemberAdded        = "group_member_added"
	TriggerMemberRemoved      = "group_member_removed"
	TriggerMemberBanned       = "group_member_banned"
	TriggerMemberUnbanned     = "group_member_unbanned"
	TriggerMemberJoined       = "group_member_joined"
	TriggerMemberLeft         = "group_member_left"
	TriggerMemberKicked       = "group_member_kicked"
	TriggerMemberScopeChanged = "group_member_scope_changed"
	TriggerOwnerTransferred   = "group_owner_transferred"

	TriggerCallInitiated         = "call_initiated"
	TriggerCallStarted           = "call_started"
	TriggerCallEnded             = "call_ended"
	TriggerCallParticipantJoined = "call_participant_joined"
	TriggerCallParticipantLeft   = "call_participant_left"
	TriggerCallBusy              = "call_busy"
	TriggerCallCancelled         = "call_cancelled"
	TriggerCallRejected          = "call_rejected"
	TriggerCallUnanswered        = "call_unanswered"
)

// EmittedTriggers are the triggers natter writes events for. group_member_removed is not
// among them: natter removes a member by kicking (group_member_kicked), banning
// (group_member_banned) or its leaving (group_member_left), and sends that one.
var EmittedTriggers = []string{
	TriggerMessageSent, TriggerMessageEdited, TriggerMessageDeleted,
	TriggerDeliveryReceipt, TriggerReadReceipt, TriggerDeliveredToAll, TriggerReadByAll,
	TriggerReactionAdded, TriggerReactionRemoved, TriggerUserMentioned,
	TriggerUserBlocked, TriggerUserUnblocked, TriggerConnectionStatus,
	TriggerGroupCreated, TriggerGroupUpdated, TriggerGroupDeleted, TriggerMemberAdded,
	TriggerMemberBanned, TriggerMemberUnbanned, TriggerMemberJoined, TriggerMemberLeft,
	TriggerMemberKicked, TriggerMemberScopeChanged, TriggerOwnerTransferred,
	TriggerModerationEngineApproved, TriggerModerationEngineBlocked, TriggerModerationManualApproved,
	TriggerCallInitiated, TriggerCallStarted, TriggerCallEnded, TriggerCallParticipantJoined, TriggerCallParticipantLeft,
	TriggerCallBusy, TriggerCallCancelled, TriggerCallRejected, TriggerCallUnanswered,
}

// Webhook is one endpoint of an app. BasicAuth is "username:password" sealed with the
// webhook key; it never leaves the service.
type Webhook struct {
	AppID        string
	ID           string
	URL          string
	Enabled      bool
	UseBasicAuth bool
	BasicAuth    []byte
	Triggers     []string
	CreatedAt    int64
	UpdatedAt    int64
	Secrets      []WebhookSecret
}

// WebhookSecret is one signing secret; Secret is sealed. ExpiresAt 0: active without end.
type WebhookSecret struct {
	ID        int64
	Secret    []byte
	CreatedAt int64
	ExpiresAt int64
}

// Active reports whether the secret still signs at unix time now.
func (s WebhookSecret) Active(now int64) bool { return s.ExpiresAt == 0 || s.ExpiresAt > now }

// WebhookStore keeps webhooks. Every method scopes by app.
type WebhookStore interface {
	// CreateWebhook stores w with its first secret; ErrAlreadyExists when the id is taken,
	// ErrLimitReached when the app has max webhooks already.
	CreateWebhook(ctx context.Context, w Webhook, secret WebhookSecret, max int) error
	// Webhook reads one webhook with its secrets; ErrNotFound.
	Webhook(ctx context.Context, appID, id string) (Webhook, error)
	// Webhooks lists an app's webhooks (with secrets) by creation.
	Webhooks(ctx context.Context, appID string) ([]Webhook, error)
	// UpdateWebhook writes w's URL, flags, credentials and triggers; ErrNotFound.
	UpdateWebhook(ctx context.Context, w Webhook) error
	// DeleteWebhook removes it with its secrets and deliveries; ErrNotFound.
	DeleteWebhook(ctx context.Context, appID, id string) error
	// RotateWebhookSecret ends the webhook's active secrets at oldUntil and adds secret;
	// ErrNotFound.
	RotateWebhookSecret(ctx context.Context, appID, id string, secret WebhookSecret, oldUntil int64) error
	// SubscribedTriggers is the set of triggers some enabled webhook of the app subscribes to.
	SubscribedTriggers(ctx context.Context, appID string) ([]string, error)
	// WebhookKey returns the deployment's webhook key, creating it on first use.
	WebhookKey(ctx context.Context) ([]byte, error)
}

// WebhookCreate is a create-webhook request; zero values are unset.
type WebhookCreate struct {
	ID           string
	URL          string
	Enabled      *bool
	UseBasicAuth bool
	Username     string
	Password     string
	Triggers     []string
}

// WebhookChange is an update; nil leaves a field as it is.
type WebhookChange struct {
	URL          *string
	Enabled      *bool
	UseBasicAuth *bool
	Username     *string
	Password     *string
	Triggers     *[]string
}

// WebhookWithSecret is a webhook and a signing secret shown this once.
type WebhookWithSecret struct {
	Webhook
	SigningSecret string
}

func errWebhookNotFound(id string) error {
	return Errorf(CodeWebhookNotFound, "The webhook %s does not exist.", id)
}

// CreateWebhook adds a webhook to the app and returns it with its signing secret, which is
// shown here and never again.
func (s Webhooks) CreateWebhook(ctx context.Context, p Principal, in WebhookCreate) (WebhookWithSecret, error) {
	fe := fieldErrors{}
	id := in.ID
	if id == "" {
		id = "wh_" + randomHex(8)
	} else {
		id = s.webhookID(fe, id)
	}
	u := s.webhookURL(fe, in.URL, true)
	triggers := webhookTriggers(fe, in.Triggers, true)
	var creds []byte
	if in.UseBasicAuth || in.Username != "" || in.Password != "" {
		fe.text("username", in.Username, MaxWebhookUserLen, in.UseBasicAuth)
		fe.text("password", in.Password, MaxWebhookPassLen, in.UseBasicAuth)
		if strings.Contains(in.Username, ":") {
			fe.add("username", "The username may not contain a colon.")
		}
	}
	if err := fe.err(); err != nil {
		return WebhookWithSecret{}, err
	}
	if code := triggerError(triggers); code != nil {
		return WebhookWithSecret{}, code
	}
	key, err := s.webhookKey(ctx)
	if err != nil {
		return WebhookWithSecret{}, internal("webhook key", err)
	}
	w := Webhook{AppID: p.App.ID, ID: id, URL: u, Enabled: in.Enabled == nil || *in.Enabled, UseBasicAuth: in.UseBasicAuth, Triggers: triggers}
	if in.UseBasicAuth {
		if creds, err = seal(key, []byte(in.Username+":"+in.Password), aad(p.App.ID, id, "basic")); err != nil {
			return WebhookWithSecret{}, internal("seal credentials", err)
		}
		w.BasicAuth = creds
	}
	now := s.now()
	w.CreatedAt, w.UpdatedAt = now, now
	plain, sec, err := newSigningSecret(key, p.App.ID, id, now)
	if err != nil {
		return WebhookWithSecret{}, internal("signing secret", err)
	}
	switch err := s.write(ctx, func(ctx context.Context) error { return s.store.CreateWebhook(ctx, w, sec, MaxWebhooks) },
		settingsChange(p.App.ID, SettingWebhooks)); {
	case errors.Is(err, ErrAlreadyExists):
		return WebhookWithSecret{}, Errorf(CodeWebhookAlreadyExists, "The webhook %s already exists.", id)
	case errors.Is(err, ErrLimitReached):
		return WebhookWithSecret{}, Errorf(CodePlanQuotaRestriction, "An app may have at most %d webhooks.", MaxWebhooks)
	case err != nil:
		return WebhookWithSecret{}, internal("create webhook", err)
	}
	s.webhookChanged(p.App.ID)
	if stored, err := s.Webhook(ctx, p, id); err == nil {
		w = stored // with its secret's id
	}
	return WebhookWithSecret{Webhook: w, SigningSecret: plain}, nil
}

// Webhook reads one of the app's webhooks.
func (s Webhooks) Webhook(ctx context.Context, p Principal, id string) (Webhook, error) {
	id = strings.ToLower(id) // ids are lower-cased on create and on lookup, as uids
	w, err := s.store.Webhook(ctx, p.App.ID, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return Webhook{}, errWebhookNotFound(id)
	case err != nil:
		return Webhook{}, internal("read webhook", err)
	}
	return s.withActiveSecrets(w), nil
}

// List lists the app's webhooks.
func (s Webhooks) List(ctx context.Context, p Principal) ([]Webhook, error) {
	ws, err := s.store.Webhooks(ctx, p.App.ID)
	if err != nil {
		return nil, internal("list webhooks", err)
	}
	for i := range ws {
		ws[i] = s.withActiveSecrets(ws[i])
	}
	return ws, nil
}

// UpdateWebhook changes a webhook. Turning Basic auth on needs a username and a password;
// sending either replaces both.
func (s Webhooks) UpdateWebhook(ctx context.Context, p Principal, id string, in WebhookChange) (Webhook, error) {
	w, err := s.Webhook(ctx, p, id)
	if err != nil {
		return Webhook{}, err
	}
	fe := fieldErrors{}
	if in.URL != nil {
		w.URL = s.webhookURL(fe, *in.URL, true)
	}
	if in.Triggers != nil {
		w.Triggers = webhookTriggers(fe, *in.Triggers, true)
	}
	if in.Enabled != nil {
		w.Enabled = *in.Enabled
	}
	credsSent := in.Username != nil || in.Password != nil
	if in.UseBasicAuth != nil {
		w.UseBasicAuth = *in.UseBasicAuth
	}
	var user, pass string
	if credsSent {
		if in.Username != nil {
			user = *in.Username
		}
		if in.Password != nil {
			pass = *in.Password
		}
		fe.text("username", user, MaxWebhookUserLen, true)
		fe.text("password", pass, MaxWebhookPassLen, true)
		if strings.Contains(user, ":") {
			fe.add("username", "The username may not contain a colon.")
		}
	} else if w.UseBasicAuth && w.BasicAuth == nil {
		fe.add("username", "The username field is required to turn Basic auth on.")
		fe.add("password", "The password field is required to turn Basic auth on.")
	}
	if len(fe) == 0 && in.URL == nil && in.Triggers == nil && in.Enabled == nil && in.UseBasicAuth == nil && !credsSent {
		fe.add("webhookURL", "Send webhookURL, enabled, useBasicAuth, username, password or triggers to change.")
	}
	if err := fe.err(); err != nil {
		return Webhook{}, err
	}
	if in.Triggers != nil {
		if err := triggerError(w.Triggers); err != nil {
			return Webhook{}, err
		}
	}
	if credsSent {
		key, err := s.webhookKey(ctx)
		if err != nil {
			return Webhook{}, internal("webhook key", err)
		}
		if w.BasicAuth, err = seal(key, []byte(user+":"+pass), aad(p.App.ID, w.ID, "basic")); err != nil {
			return Webhook{}, internal("seal credentials", err)
		}
	}
	if !w.UseBasicAuth {
		w.BasicAuth = nil
	}
	w.UpdatedAt = s.now()
	switch err := s.write(ctx, func(ctx context.Context) error { return s.store.UpdateWebhook(ctx, w) },
		settingsChange(p.App.ID, SettingWebhooks)); {
	case errors.Is(err, ErrNotFound):
		return Webhook{}, errWebhookNotFound(id)
	case err != nil:
		return Webhook{}, internal("update webhook", err)
	}
	s.webhookChanged(p.App.ID)
	return w, nil
}

// DeleteWebhook removes a webhook and its delivery log; its pending deliveries are dropped.
func (s Webhooks) DeleteWebhook(ctx context.Context, p Principal, id string) error {
	id = strings.ToLower(id)
	switch err := s.write(ctx, func(ctx context.Context) error { return s.store.DeleteWebhook(ctx, p.App.ID, id) },
		settingsChange(p.App.ID, SettingWebhooks)); {
	case errors.Is(err, ErrNotFound):
		return errWebhookNotFound(id)
	case err != nil:
		return internal("delete webhook", err)
	}
	s.webhookChanged(p.App.ID)
	return nil
}

// RotateWebhookSecret adds a new signing secret, shown this once; the active ones keep
// signing beside it for keepOld (DefaultSecretRotate when nil; 0 ends them at once), so a
// receiver can switch without losing a delivery.
func (s Webhooks) RotateWebhookSecret(ctx context.Context, p Principal, id string, keepOld *time.Duration) (WebhookWithSecret, error) {
	keep := DefaultSecretRotate
	if keepOld != nil {
		keep = *keepOld
	}
	if keep < 0 || keep > MaxSecretRotate {
		return WebhookWithSecret{}, InvalidField("previousExpiresIn", "The previousExpiresIn must be between 0 and 604800 seconds.")
	}
	w, err := s.Webhook(ctx, p, id)
	if err != nil {
		return WebhookWithSecret{}, err
	}
	id = w.ID
	key, err := s.webhookKey(ctx)
	if err != nil {
		return WebhookWithSecret{}, internal("webhook key", err)
	}
	now := s.now()
	plain, sec, err := newSigningSecret(key, p.App.ID, id, now)
	if err != nil {
		return WebhookWithSecret{}, internal("signing secret", err)
	}
	until := now + int64(keep/time.Second)
	if keep == 0 {
		until = now // expired: ExpiresAt > now is false
	}
	switch err := s.write(ctx, func(ctx context.Context) error { return s.store.RotateWebhookSecret(ctx, p.App.ID, id, sec, until) },
		settingsChange(p.App.ID, SettingWebhooks)); {
	case errors.Is(err, ErrNotFound):
		return WebhookWithSecret{}, errWebhookNotFound(id)
	case err != nil:
		return WebhookWithSecret{}, internal("rotate secret", err)
	}
	if w, err = s.Webhook(ctx, p, id); err != nil {
		return WebhookWithSecret{}, err
	}
	return WebhookWithSecret{Webhook: w, SigningSecret: plain}, nil
}

// withActiveSecrets drops the secrets that no longer sign.
func (s *Service) withActiveSecrets(w Webhook) Webhook {
	now := s.now()
	w.Secrets = slices.DeleteFunc(w.Secrets, func(sec WebhookSecret) bool { return !sec.Active(now) })
	return w
}

// SigningSecrets opens a webhook's secrets that sign at unix time now, newest first.
func (s Webhooks) SigningSecrets(ctx context.Context, w Webhook, now int64) ([][]byte, error) {
	key, err := s.webhookKey(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for i := len(w.Secrets) - 1; i >= 0; i-- {
		sec := w.Secrets[i]
		if !sec.Active(now) {
			continue
		}
		b, err := open(key, sec.Secret, aad(w.AppID, w.ID, "signing"))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// BasicCredentials opens a webhook's Basic-auth "username:password"; empty when it has none.
func (s Webhooks) BasicCredentials(ctx context.Context, w Webhook) (string, error) {
	if !w.UseBasicAuth || w.BasicAuth == nil {
		return "", nil
	}
	key, err := s.webhookKey(ctx)
	if err != nil {
		return "", err
	}
	b, err := open(key, w.BasicAuth, aad(w.AppID, w.ID, "basic"))
	return string(b), err
}

func newSigningSecret(key []byte, appID, id string, now int64) (string, WebhookSecret, error) {
	raw := make([]byte, 32)
	rand.Read(raw)
	plain := signingSecretPrefix + base64.RawURLEncoding.EncodeToString(raw)
	sealed, err := seal(key, []byte(plain), aad(appID, id, "signing"))
	return plain, WebhookSecret{Secret: sealed, CreatedAt: now}, err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Service) webhookID(fe fieldErrors, id string) string {
	if len(id) > MaxWebhookIDLen {
		fe.add("id", "The id may not be greater than 50 characters.")
		return id
	}
	return fe.id("id", id, true)
}

// webhookURL validates a webhook URL: absolute http(s), a host, no credentials or fragment,
// at most 255 characters, and, unless private addresses are allowed, not a loopback,
// private, link-local or unspecified IP literal nor a localhost name. Names that resolve to
// such addresses are refused when delivering, at connect time.
func (s *Service) webhookURL(fe fieldErrors, raw string, required bool) string {
	if raw == "" {
		if required {
			fe.add("webhookURL", "The webhookURL field is required.")
		}
		return ""
	}
	if len(raw) > MaxWebhookURLLen {
		fe.add("webhookURL", "The webhookURL may not be greater than 255 characters.")
		return raw
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		fe.add("webhookURL", "The webhookURL must be an absolute http or https URL.")
		return raw
	case u.User != nil:
		fe.add("webhookURL", "The webhookURL may not carry credentials: use useBasicAuth.")
		return raw
	case u.Fragment != "" || strings.Contains(raw, "#"):
		fe.add("webhookURL", "The webhookURL may not have a fragment.")
		return raw
	}
	if !s.cfg.WebhookAllowPrivate && PrivateHost(u.Hostname()) {
		fe.add("webhookURL", "The webhookURL names a loopback, private or link-local address, which this server does not deliver to.")
	}
	return raw
}

// PrivateHost reports whether a URL's host is an address (or localhost name) webhooks are
// not delivered to unless allowed (internal/publicaddr, the rule the dialer applies too).
func PrivateHost(host string) bool { return publicaddr.PrivateHost(host) }

// PrivateAddr reports whether ip is loopback, private, link-local, unspecified, multicast or
// otherwise not a public unicast address.
func PrivateAddr(ip netip.Addr) bool { return publicaddr.Private(ip) }

func webhookTriggers(fe fieldErrors, in []string, required bool) []string {
	if len(in) == 0 {
		if required {
			fe.add("triggers", "The triggers field is required: name at least one trigger.")
		}
		return nil
	}
	if len(in) > len(Triggers) {
		fe.add("triggers", "The triggers may not have more items than there are triggers.")
		return nil
	}
	out := make([]string, 0, len(in))
	for _, t := range in {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// triggerError refuses a trigger that is not one of Triggers, naming it.
func triggerError(ts []string) error {
	for _, t := range ts {
		if !slices.Contains(Triggers, t) {
			return &Error{Code: CodeTriggerNotFound, Message: "The trigger " + brief(t) + " does not exist.",
				Details: map[string][]string{"triggers": {"Unknown trigger " + brief(t) + "."}}}
		}
	}
	return nil
}

// webhookKey is the key webhook secrets are sealed with: Config.WebhookKey when set, else
// the one the database keeps.
func (s *Service) webhookKey(ctx context.Context) ([]byte, error) {
	s.secretMu.Lock()
	defer s.secretMu.Unlock()
	if s.whKey != nil {
		return s.whKey, nil
	}
	raw := s.cfg.WebhookKey
	if len(raw) == 0 {
		var err error
		if raw, err = s.store.WebhookKey(ctx); err != nil {
			return nil, err
		}
	}
	s.whKey = deriveKey(raw)
	return s.whKey, nil
}
