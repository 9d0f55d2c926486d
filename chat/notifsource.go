package chat

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"errors"
)

// NotificationSource is what the delivery of notifications (issue 17's slice 3, the notify
// package) reads: an app's providers with their credentials opened and parsed, ready to
// sign or to authenticate, and the push tokens to send to. *Service implements it. Nothing
// it returns may be logged or answered: the credentials are secrets.
//
// Every method scopes by app. A provider the app does not have is an *Error with
// CodeProviderNotFound (the delivery logs INVALID_PUSH_PROVIDER_ID for a token that names
// one); a credential that no longer opens (NATTER_WEBHOOK_KEY changed) is an internal error.
// Reads go to the database each time: the delivery caches what it needs, for a bounded time.
type NotificationSource interface {
	// FCMCredentials reads an FCM provider and opens its service account. id is a push
	// token's providerId: DefaultProviderID, or "", is the app's default FCM provider.
	FCMCredentials(ctx context.Context, appID, id string) (FCMProvider, FCMCredentials, error)
	// APNsCredentials reads an APNs provider and opens its key; id as for FCMCredentials.
	// Tokens of kind PushAPNs and PushVoIP both go through APNs providers.
	APNsCredentials(ctx context.Context, appID, id string) (APNsProvider, APNsCredentials, error)
	// TwilioCredentials reads the app's Twilio provider and opens its auth token. The
	// provider may be disabled (TwilioProvider.Enabled): the delivery then sends nothing.
	TwilioCredentials(ctx context.Context, appID string) (TwilioProvider, TwilioCredentials, error)
	// SendGridCredentials reads the app's SendGrid provider and opens its API key; it may be
	// disabled, as Twilio's.
	SendGridCredentials(ctx context.Context, appID string) (SendGridProvider, SendGridCredentials, error)
	// CustomCredentials reads a channel's custom provider and opens its Basic-auth
	// password ("" without Basic auth). Its URL passed the webhook URL rules when stored;
	// the delivery must still refuse a name that resolves to a private address unless
	// Config.WebhookAllowPrivate, as webhook delivery does at connect time.
	CustomCredentials(ctx context.Context, appID string, c Channel) (CustomProvider, CustomCredentials, error)
	// PushTokensOf lists the push tokens of the active users among uids, by user, then
	// oldest first, each with its kind and the providerId it was registered for.
	PushTokensOf(ctx context.Context, appID string, uids []string) ([]PushToken, error)
	// DropPushToken deletes a push token whatever its user, as when its provider reports it
	// unregistered or invalid; no error when it is already gone.
	DropPushToken(ctx context.Context, appID, token string) error
}

var _ NotificationSource = (*Service)(nil)

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

// FCMCredentials implements NotificationSource.
func (s *Service) FCMCredentials(ctx context.Context, appID, id string) (FCMProvider, FCMCredentials, error) {
	pr, err := s.provider(ctx, appID, ProviderFCM, normalizedProviderID(id))
	if err != nil {
		return FCMProvider{}, FCMCredentials{}, err
	}
	out, err := fcmOut(pr)
	if err != nil {
		return FCMProvider{}, FCMCredentials{}, err
	}
	pem, err := s.openSecret(ctx, pr)
	if err != nil {
		return FCMProvider{}, FCMCredentials{}, internal("open FCM credential", err)
	}
	key, err := ParseRSAPrivateKey(pem)
	if err != nil {
		return FCMProvider{}, FCMCredentials{}, internal("parse FCM credential", err)
	}
	return out, FCMCredentials{ProjectID: out.ProjectID, ClientEmail: out.ClientEmail, PrivateKeyID: out.PrivateKeyID, PrivateKey: key}, nil
}

// APNsCredentials implements NotificationSource.
func (s *Service) APNsCredentials(ctx context.Context, appID, id string) (APNsProvider, APNsCredentials, error) {
	pr, err := s.provider(ctx, appID, ProviderAPNs, normalizedProviderID(id))
	if err != nil {
		return APNsProvider{}, APNsCredentials{}, err
	}
	out, err := apnsOut(pr)
	if err != nil {
		return APNsProvider{}, APNsCredentials{}, err
	}
	pem, err := s.openSecret(ctx, pr)
	if err != nil {
		return APNsProvider{}, APNsCredentials{}, internal("open APNs credential", err)
	}
	key, err := ParseAPNsKey(pem)
	if err != nil {
		return APNsProvider{}, APNsCredentials{}, internal("parse APNs credential", err)
	}
	return out, APNsCredentials{KeyID: out.KeyID, TeamID: out.TeamID, BundleID: out.BundleID, Production: out.Production, Key: key}, nil
}

// TwilioCredentials implements NotificationSource.
func (s *Service) TwilioCredentials(ctx context.Context, appID string) (TwilioProvider, TwilioCredentials, error) {
	pr, err := s.provider(ctx, appID, ProviderTwilio, "")
	if err != nil {
		return TwilioProvider{}, TwilioCredentials{}, err
	}
	out, err := twilioOut(pr)
	if err != nil {
		return TwilioProvider{}, TwilioCredentials{}, err
	}
	tok, err := s.openSecret(ctx, pr)
	if err != nil {
		return TwilioProvider{}, TwilioCredentials{}, internal("open Twilio credential", err)
	}
	return out, TwilioCredentials{AccountSID: out.AccountSID, AuthToken: tok, From: out.SenderPhoneNumber}, nil
}

// SendGridCredentials implements NotificationSource.
func (s *Service) SendGridCredentials(ctx context.Context, appID string) (SendGridProvider, SendGridCredentials, error) {
	pr, err := s.provider(ctx, appID, ProviderSendGrid, "")
	if err != nil {
		return SendGridProvider{}, SendGridCredentials{}, err
	}
	out, err := sendGridOut(pr)
	if err != nil {
		return SendGridProvider{}, SendGridCredentials{}, err
	}
	key, err := s.openSecret(ctx, pr)
	if err != nil {
		return SendGridProvider{}, SendGridCredentials{}, internal("open SendGrid credential", err)
	}
	return out, SendGridCredentials{APIKey: key}, nil
}

// CustomCredentials implements NotificationSource.
func (s *Service) CustomCredentials(ctx context.Context, appID string, c Channel) (CustomProvider, CustomCredentials, error) {
	pr, err := s.provider(ctx, appID, c.kind(), "")
	if err != nil {
		return CustomProvider{}, CustomCredentials{}, err
	}
	out, err := customOut(c, pr)
	if err != nil || !out.UseBasicAuth {
		return out, CustomCredentials{}, err
	}
	pass, err := s.openSecret(ctx, pr)
	if err != nil {
		return CustomProvider{}, CustomCredentials{}, internal("open custom provider credential", err)
	}
	return out, CustomCredentials{Username: out.Username, Password: pass}, nil
}

// PushTokensOf implements NotificationSource.
func (s *Service) PushTokensOf(ctx context.Context, appID string, uids []string) ([]PushToken, error) {
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
func (s *Service) DropPushToken(ctx context.Context, appID, token string) error {
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
