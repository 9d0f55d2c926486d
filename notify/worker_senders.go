package notify

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"time"

	"github.com/natter-chat/natter/chat"
)

// sender is the Sender of s's provider, kept per app and provider for senderTTL so that FCM
// and APNs reuse their access tokens; nil and the Result to log when there is none.
func (w *Worker) sender(ctx context.Context, s chat.NotificationSend) (Sender, Result) {
	key := s.AppID + "\x00" + string(s.Channel) + "\x00" + s.Provider + "\x00" + s.ProviderID
	w.mu.Lock()
	c, ok := w.senders[key]
	w.mu.Unlock()
	if ok && time.Now().Before(c.expires) {
		return c.s, Result{}
	}
	snd, err := w.newSender(ctx, s)
	var ce *chat.Error
	switch {
	case errors.As(err, &ce) && ce.Code == chat.CodeProviderNotFound:
		return nil, Result{Misconfigured: true, Reason: chat.ReasonInvalidProvider, Err: err}
	case errors.Is(err, errDisabled):
		return nil, Result{Misconfigured: true, Reason: "providerDisabled", Err: err}
	case err != nil:
		return nil, Result{Retry: true, Reason: "providerUnavailable", Err: err}
	}
	w.mu.Lock()
	w.senders[key] = cachedSender{s: snd, expires: time.Now().Add(senderTTL)}
	w.mu.Unlock()
	return snd, Result{}
}

// forget drops s's provider's sender, as when it turns out misconfigured: the next send
// reads the provider's settings again.
func (w *Worker) forget(s chat.NotificationSend) {
	w.mu.Lock()
	delete(w.senders, s.AppID+"\x00"+string(s.Channel)+"\x00"+s.Provider+"\x00"+s.ProviderID)
	w.mu.Unlock()
}

var errDisabled = errors.New("the provider is disabled")

// newSender makes the Sender of s's provider from its credentials, opened now.
func (w *Worker) newSender(ctx context.Context, s chat.NotificationSend) (Sender, error) {
	newKind, ok := senderKinds[s.Provider]
	if !ok {
		return nil, errors.New("unknown provider " + s.Provider)
	}
	return newKind(ctx, w, s)
}

// senderKinds make each provider kind's Sender, by the name sends give the kind
// (chat.ProviderSpec.Log): from its opened credentials to the Client's sender for them. A
// kind's other traits are its chat descriptor's.
var senderKinds = map[string]func(ctx context.Context, w *Worker, s chat.NotificationSend) (Sender, error){
	chat.LogProviderFCM: func(ctx context.Context, w *Worker, s chat.NotificationSend) (Sender, error) {
		_, cred, err := chat.FCM.Credentials(ctx, w.svc, s.AppID, s.ProviderID)
		if err != nil {
			return nil, err
		}
		key, err := keyPEM(cred.PrivateKey)
		if err != nil {
			return nil, err
		}
		sa, err := json.Marshal(map[string]string{"type": "service_account", "project_id": cred.ProjectID, "client_email": cred.ClientEmail,
			"private_key_id": cred.PrivateKeyID, "private_key": string(key)})
		if err != nil {
			return nil, err
		}
		return w.client.NewFCM(FCMConfig{ServiceAccount: sa})
	},
	chat.LogProviderAPNs: func(ctx context.Context, w *Worker, s chat.NotificationSend) (Sender, error) {
		_, cred, err := chat.APNs.Credentials(ctx, w.svc, s.AppID, s.ProviderID)
		if err != nil {
			return nil, err
		}
		key, err := keyPEM(cred.Key)
		if err != nil {
			return nil, err
		}
		return w.client.NewAPNs(APNsConfig{TeamID: cred.TeamID, KeyID: cred.KeyID, Topic: cred.BundleID, Sandbox: !cred.Production, Key: key})
	},
	chat.LogProviderTwilio: func(ctx context.Context, w *Worker, s chat.NotificationSend) (Sender, error) {
		p, cred, err := chat.Twilio.Credentials(ctx, w.svc, s.AppID, "")
		if err = enabled(p.Enabled, err); err != nil {
			return nil, err
		}
		return w.client.NewTwilio(TwilioConfig{AccountSID: cred.AccountSID, AuthToken: cred.AuthToken, From: cred.From})
	},
	chat.LogProviderSendGrid: func(ctx context.Context, w *Worker, s chat.NotificationSend) (Sender, error) {
		p, cred, err := chat.SendGrid.Credentials(ctx, w.svc, s.AppID, "")
		if err = enabled(p.Enabled, err); err != nil {
			return nil, err
		}
		return w.client.NewSendGrid(SendGridConfig{APIKey: cred.APIKey, FromEmail: p.SenderEmail, FromName: p.SenderName})
	},
	chat.LogProviderCustom: func(ctx context.Context, w *Worker, s chat.NotificationSend) (Sender, error) {
		p, cred, err := chat.Custom(s.Channel).Credentials(ctx, w.svc, s.AppID, "")
		if err = enabled(p.Enabled, err); err != nil {
			return nil, err
		}
		app, err := w.svc.Webhooks().AppForDelivery(ctx, s.AppID)
		if err != nil {
			return nil, err
		}
		return w.client.NewCustom(CustomConfig{URL: p.WebhookURL, Username: cred.Username, Password: cred.Password, AppID: app.ID,
			Region: string(app.Region)})
	},
}

// enabled is a provider read's error, or errDisabled when the provider it read is off.
func enabled(on bool, err error) error {
	if err == nil && !on {
		return errDisabled
	}
	return err
}

// keyPEM is a private key as the Client's senders read it.
func keyPEM(key any) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
