package chat

import (
	"context"
	"errors"
	"regexp"
	"slices"
)

// Push tokens: a device's FCM registration token, APNs device token or APNs VoIP token,
// registered for one of its user's auth tokens (a login on that device), as the client SDK's
// registerPushToken does after login. A token lives as long as its auth token: deleting the
// auth token (DELETE /me, DELETE /users/{uid}/auth_tokens…, the oldest beyond
// MaxAuthTokensPerUser, deleting the user) deletes its push tokens in the same statement
// (a foreign key with ON DELETE CASCADE).
//
// An auth token has at most one push token of each kind: registering another replaces it (a
// device's token changes when the provider rotates it). A token value belongs to one auth
// token: registering it with another (the same device, logged in again, or by another user)
// moves it there. Registering the same token again is therefore idempotent, never
// ERR_TOKEN_ALREADY_EXISTS: the SDK registers on every start.

// PushTokenKind is what a push token is, and so which provider kind sends to it.
type PushTokenKind string

// The kinds.
const (
	PushFCM  PushTokenKind = "fcm"  // FCM registration token (fcmToken)
	PushAPNs PushTokenKind = "apns" // APNs device token (deviceToken)
	PushVoIP PushTokenKind = "voip" // APNs VoIP token (voipToken)
)

// ProviderKind is the provider kind that sends to tokens of this kind (ProviderSpec.Tokens).
func (k PushTokenKind) ProviderKind() ProviderKind { return tokenProviders[k] }

// Field is the request field that carries a token of this kind.
func (k PushTokenKind) Field() string {
	switch k {
	case PushFCM:
		return "fcmToken"
	case PushAPNs:
		return "deviceToken"
	}
	return "voipToken"
}

// pushPlatforms are the platforms of the hosted API (PlatformFCM, PlatformAPNS,
// PlatformVOIP) and the kind of token each registers.
var pushPlatforms = map[string]PushTokenKind{
	"fcm_android": PushFCM, "fcm_ios": PushFCM, "fcm_web": PushFCM,
	"fcm_flutter_android": PushFCM, "fcm_flutter_ios": PushFCM,
	"fcm_react_native_android": PushFCM, "fcm_react_native_ios": PushFCM,
	"fcm_ionic_cordova_android": PushFCM, "fcm_ionic_cordova_ios": PushFCM,
	"apns_ios_device": PushAPNs, "apns_flutter_device": PushAPNs,
	"apns_react_native_device": PushAPNs, "apns_ionic_cordova_device": PushAPNs,
	"apns_ios_voip": PushVoIP, "apns_flutter_voip": PushVoIP,
	"apns_ionic_cordova_voip": PushVoIP, "apns_react_native_voip": PushVoIP,
}

// PlatformKind is the kind of token a platform registers; false for an unknown platform.
func PlatformKind(platform string) (PushTokenKind, bool) {
	k, ok := pushPlatforms[platform]
	return k, ok
}

// Limits of push tokens.
const (
	MaxPushTokenLen = 4096 // FCM's are about 160 characters, APNs' 64; Google sets no bound
)

var (
	pushTokenPattern = regexp.MustCompile(`^[A-Za-z0-9_:.+/=-]+$`)
	apnsTokenPattern = regexp.MustCompile(`^[0-9A-Fa-f]{16,200}$`)
	timezonePattern  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$`) // an IANA name: Asia/Kolkata, America/Argentina/Buenos_Aires, UTC
)

// PushToken is one registered push token.
type PushToken struct {
	AppID    string
	UID      string
	AuthHash string // the hash of the auth token it was registered with
	// AuthMasked is that auth token as lists show it (AuthToken.Masked); set on reads.
	AuthMasked string
	Token      string
	Platform   string
	Kind       PushTokenKind
	// ProviderID is the provider it was registered for, as sent: DefaultProviderID means
	// the app's default provider of its kind at the time of sending.
	ProviderID string
	Timezone   string
	CreatedAt  int64 // UNIX milliseconds
	UpdatedAt  int64
}

// PushTokenFilter selects push tokens of one app; empty fields do not filter. It selects
// nothing unless UID, AuthHash or Token is set.
type PushTokenFilter struct {
	UID      string
	AuthHash string
	Token    string
}

// PushTokenStore keeps push tokens. Every method scopes by app.
type PushTokenStore interface {
	// PushTokens lists the tokens of the users among uids that are active, by user, then
	// oldest first.
	PushTokens(ctx context.Context, appID string, uids []string) ([]PushToken, error)
	// AuthPushTokens lists the tokens registered with one auth token, oldest first.
	AuthPushTokens(ctx context.Context, appID, authHash string) ([]PushToken, error)
	// DeletePushTokens deletes the tokens f selects and returns them.
	DeletePushTokens(ctx context.Context, appID string, f PushTokenFilter) ([]PushToken, error)
}

// PushTokenTx registers a token inside a transaction.
type PushTokenTx interface {
	// LockAuthToken holds the auth token with this hash, of an active user of the app, until
	// the transaction ends, so that its registrations queue; ErrNotFound.
	LockAuthToken(appID, hash string) (AuthToken, error)
	// DeleteOtherPushTokens deletes the auth token's tokens of a kind but token.
	DeleteOtherPushTokens(appID, authHash string, kind PushTokenKind, token string) error
	// UpsertPushToken stores t, or moves the app's token of the same value to t's auth
	// token and fields (keeping its CreatedAt).
	UpsertPushToken(t PushToken) error
}

// PushTokenRegister is a registration: the platform, the token in the field of its kind,
// the provider (DefaultProviderID when empty), the device's time zone, and the auth token
// it belongs to when the request was made with an API key.
type PushTokenRegister struct {
	Platform    string
	FCMToken    *string
	DeviceToken *string
	VoIPToken   *string
	ProviderID  string
	Timezone    string
	AuthToken   string
}

// pushTokenOf checks a registration's platform and token fields and returns the token and
// its kind: exactly the field of the platform's kind must carry it.
func (f fieldErrors) pushTokenOf(in PushTokenRegister) (string, PushTokenKind) {
	kind, ok := PlatformKind(in.Platform)
	switch {
	case in.Platform == "":
		f.add("platform", "The platform field is required.")
	case !ok:
		f.add("platform", "The platform "+brief(in.Platform)+" is not one of the push platforms (fcm_android, fcm_ios, fcm_web, apns_ios_device, apns_ios_voip, …).")
	}
	fields := map[PushTokenKind]*string{PushFCM: in.FCMToken, PushAPNs: in.DeviceToken, PushVoIP: in.VoIPToken}
	for k, v := range fields {
		if v != nil && ok && k != kind {
			f.add(k.Field(), "The "+k.Field()+" field does not go with the platform "+in.Platform+": send "+kind.Field()+".")
		}
	}
	if !ok {
		return "", ""
	}
	v := deref(fields[kind])
	switch {
	case v == "":
		f.add(kind.Field(), "The "+kind.Field()+" field is required with the platform "+in.Platform+".")
	case len(v) > MaxPushTokenLen:
		f.add(kind.Field(), "The "+kind.Field()+" may not be greater than 4096 characters.")
	case kind != PushFCM && !apnsTokenPattern.MatchString(v):
		f.add(kind.Field(), "The "+kind.Field()+" must be the hexadecimal token APNs gives.")
	case !pushTokenPattern.MatchString(v):
		f.add(kind.Field(), "The "+kind.Field()+" may only contain letters, digits and _ : . + / = -.")
	}
	return v, kind
}

// timezone checks a time zone's name (the SDK sends the browser's IANA zone).
func (f fieldErrors) timezone(v string) {
	if v != "" && (len(v) > MaxTimezoneLen || !timezonePattern.MatchString(v)) {
		f.add("timezone", "The timezone must be an IANA time zone name, such as Asia/Kolkata.")
	}
}

// pushAuthToken resolves the auth token push-token operations act for: the request's own
// when made with one (a body or query authToken, if sent, must be the same), else the one
// the request names, of an active user of the app.
func (s *Service) pushAuthToken(ctx context.Context, p Principal, named string) (AuthToken, error) {
	if p.ByToken() {
		if named != "" && HashKey(named) != p.TokenHash {
			return AuthToken{}, errNoAccess("A client may manage the push tokens of its own auth token only; send no authToken, or the one of the authToken header.")
		}
		return AuthToken{AppID: p.App.ID, UID: p.Actor, Hash: p.TokenHash}, nil
	}
	if named == "" {
		return AuthToken{}, InvalidField("authToken", "The authToken field is required: the auth token the push tokens belong to.")
	}
	errNotFound := Errorf(CodeAuthTokenNotFound, "The auth token does not exist.")
	if _, ok := tokenUID(named); !ok {
		return AuthToken{}, errNotFound
	}
	t, err := s.store.AuthTokenByHash(ctx, HashKey(named))
	switch {
	case errors.Is(err, ErrNotFound) || err == nil && t.AppID != p.App.ID:
		return AuthToken{}, errNotFound
	case err != nil:
		return AuthToken{}, internal("find auth token", err)
	}
	return t, nil
}

// RegisterPushToken registers a device's push token for an auth token. The provider must
// exist: a named one of the token's kind, or the kind's default; ERR_PROVIDER_NOT_FOUND
// otherwise.
func (s Notifications) RegisterPushToken(ctx context.Context, p Principal, in PushTokenRegister) (PushToken, error) {
	fe := fieldErrors{}
	value, kind := fe.pushTokenOf(in)
	providerID := in.ProviderID
	if providerID == "" {
		providerID = DefaultProviderID
	} else if len(providerID) > MaxProviderIDLen {
		fe.add("providerId", "The providerId may not be greater than 50 characters.")
	} else {
		providerID = fe.id("providerId", providerID, true)
	}
	fe.timezone(in.Timezone)
	if err := fe.err(); err != nil {
		return PushToken{}, err
	}
	at, err := s.pushAuthToken(ctx, p, in.AuthToken)
	if err != nil {
		return PushToken{}, err
	}
	if _, err := s.provider(ctx, p.App.ID, kind.ProviderKind(), providerID); err != nil {
		return PushToken{}, err
	}
	now := s.cfg.Now().UnixMilli()
	t := PushToken{AppID: p.App.ID, UID: at.UID, AuthHash: at.Hash, Token: value, Platform: in.Platform, Kind: kind,
		ProviderID: providerID, Timezone: in.Timezone, CreatedAt: now, UpdatedAt: now}
	err = s.transactSettings(ctx, p.App.ID, SettingNotification, func(tx Tx) error {
		if _, err := tx.LockAuthToken(p.App.ID, at.Hash); err != nil {
			return err
		}
		if err := tx.DeleteOtherPushTokens(p.App.ID, at.Hash, kind, value); err != nil {
			return err
		}
		return tx.UpsertPushToken(t)
	})
	switch {
	case errors.Is(err, ErrNotFound): // the auth token went meanwhile
		return PushToken{}, Errorf(CodeAuthTokenNotFound, "The auth token does not exist.")
	case err != nil:
		return PushToken{}, internal("register push token", err)
	}
	return t, nil
}

// PushTokens lists the push tokens of the auth token the request names (or is made with),
// or with all every push token of its user.
func (s Notifications) PushTokens(ctx context.Context, p Principal, authToken string, all bool) ([]PushToken, error) {
	at, err := s.pushAuthToken(ctx, p, authToken)
	if err != nil {
		return nil, err
	}
	var ts []PushToken
	if all {
		ts, err = s.store.PushTokens(ctx, p.App.ID, []string{at.UID})
	} else {
		ts, err = s.store.AuthPushTokens(ctx, p.App.ID, at.Hash)
	}
	if err != nil {
		return nil, internal("list push tokens", err)
	}
	return ts, nil
}

// UnregisterPushTokens deletes the push tokens of the auth token the request names (or is
// made with), or with all every push token of its user, and returns them; none is no error
// (the SDK unregisters on logout whether or not it registered).
func (s Notifications) UnregisterPushTokens(ctx context.Context, p Principal, authToken string, all bool) ([]PushToken, error) {
	at, err := s.pushAuthToken(ctx, p, authToken)
	if err != nil {
		return nil, err
	}
	f := PushTokenFilter{AuthHash: at.Hash}
	if all {
		f = PushTokenFilter{UID: at.UID}
	}
	ts, err := s.deletePushTokens(ctx, p.App.ID, f)
	if err != nil {
		return nil, internal("unregister push tokens", err)
	}
	return ts, nil
}

// deletePushTokens deletes the push tokens f selects and returns them.
func (s *Service) deletePushTokens(ctx context.Context, appID string, f PushTokenFilter) (ts []PushToken, err error) {
	err = s.write(ctx, func(ctx context.Context) error {
		ts, err = s.store.DeletePushTokens(ctx, appID, f)
		return err
	}, settingsChange(appID, SettingNotification))
	return ts, err
}

// DeletePushToken deletes one push token of the user whose auth token the request names (or
// is made with); ERR_TOKEN_NOT_FOUND when that user has no such token.
func (s Notifications) DeletePushToken(ctx context.Context, p Principal, authToken, token string) (PushToken, error) {
	at, err := s.pushAuthToken(ctx, p, authToken)
	if err != nil {
		return PushToken{}, err
	}
	ts, err := s.deletePushTokens(ctx, p.App.ID, PushTokenFilter{UID: at.UID, Token: token})
	if err != nil {
		return PushToken{}, internal("delete push token", err)
	}
	if len(ts) == 0 {
		return PushToken{}, Errorf(CodeTokenNotFound, "The push token does not exist for this user.")
	}
	return ts[0], nil
}

// sortedUnique is uids sorted without repeats.
func sortedUnique(uids []string) []string {
	out := slices.Clone(uids)
	slices.Sort(out)
	return slices.Compact(out)
}
