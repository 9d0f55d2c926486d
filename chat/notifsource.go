package chat

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"errors"
)

// NotificationSource is what the delivery of notifications (issue 17's slice 3, the notify
// package) reads besides the providers' credentials, which each kind's descriptor opens
// (Providers.Credentials: FCM, APNs, Twilio, SendGrid, Custom): the push tokens to send to.
// Notifications (the family) implements it. Every method scopes by app. Reads go to the database each time:
// the delivery caches what it needs, for a bounded time.
type NotificationSource interface {
	// PushTokensOf lists the push tokens of the active users among uids, by user, then
	// oldest first, each with its kind and the providerId it was registered for.
	PushTokensOf(ctx context.Context, appID string, uids []string) ([]PushToken, error)
	// DropPushToken deletes a push token whatever its user, as when its provider reports it
	// unregistered or invalid; no error when it is already gone.
	DropPushToken(ctx context.Context, appID, token string) error
}

var _ NotificationSource = Notifications{}

// FCMCredentials are an FCM provider's opened service account: sign Google's OAuth
// assertion with PrivateKey (RS256, kid PrivateKeyID, iss ClientEmail) and send to
// ProjectID's messages:send.
type FCMCredentials struct {
	ProjectID    string
	ClientEmail  string
	PrivateKeyID string
	PrivateKey   *rsa.PrivateKey
}

// APNsCredentials are an APNs provider's opened key: sign the provider token with Key
// (ES256, kid KeyID, iss TeamID), send with topic BundleID (VoIP: BundleID + ".voip") to the
// production host when Production, else the sandbox.
type APNsCredentials struct {
	KeyID      string
	TeamID     string
	BundleID   string
	Production bool
	Key        *ecdsa.PrivateKey
}

// TwilioCredentials are what Twilio's Messages API needs: Basic auth AccountSID:AuthToken,
// From.
type TwilioCredentials struct {
	AccountSID string
	AuthToken  string
	From       string
}

// SendGridCredentials are what SendGrid's mail/send needs besides the provider's settings.
type SendGridCredentials struct {
	APIKey string
}

// CustomCredentials are a custom provider's Basic-auth credentials; empty without Basic auth.
type CustomCredentials struct {
	Username string
	Password string
}

// PushTokensOf implements NotificationSource.
func (s Notifications) PushTokensOf(ctx context.Context, appID string, uids []string) ([]PushToken, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	ts, err := s.store.PushTokens(ctx, appID, sortedUnique(uids))
	if err != nil {
		return nil, internal("list push tokens", err)
	}
	return ts, nil
}

// DropPushToken implements NotificationSource.
func (s Notifications) DropPushToken(ctx context.Context, appID, token string) error {
	if token == "" {
		return nil
	}
	if _, err := s.deletePushTokens(ctx, appID, PushTokenFilter{Token: token}); err != nil && !errors.Is(err, ErrNotFound) {
		return internal("drop push token", err)
	}
	return nil
}

// normalizedProviderID is a token's providerId as stored: lower case, "" for the default.
func normalizedProviderID(id string) string {
	if id == "" {
		return DefaultProviderID
	}
	n, _ := NormalizeID(id)
	return n
}
