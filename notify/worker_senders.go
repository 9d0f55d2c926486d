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

func (w *Worker) newSender(ctx context.Context, s chat.NotificationSend) (Sender, error) {
	switch s.Provider {
	case chat.LogProviderCustom:
		p, cred, err := w.svc.CustomCredentials(ctx, s.AppID, s.Channel)
		if err != nil {
			return nil, err
		}
		if !p.Enabled {
			return nil, errDisabled
		}
		app, err := w.svc.AppForDelivery(ctx, s.AppID)
		if err != nil {
			return nil, err
		}
		return w.client.NewCustom(CustomConfig{URL: p.WebhookURL, Username: cred.Username, Password: cred.Password, AppID: app.ID,
			Region: string(app.Region)})
	case chat.LogProviderFCM:
		_, cred, err := w.svc.FCMCredentials(ctx, s.AppID, s.ProviderID)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(cred.PrivateKey)
		if err != nil {
			return nil, err
		}
		sa, err := json.Marshal(map[string]string{"type": "service_account", "project_id": cred.ProjectID, "client_email": cred.ClientEmail,
			"private_key_id": cred.PrivateKeyID, "private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))})
		if err != nil {
			return nil, err
		}
		return w.client.NewFCM(FCMConfig{ServiceAccount: sa})
	case chat.LogProviderAPNs:
		_, cred, err := w.svc.APNsCredentials(ctx, s.AppID, s.ProviderID)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKCS8PrivateKey(cred.Key)
		if err != nil {
			return nil, err
		}
		return w.client.NewAPNs(APNsConfig{TeamID: cred.TeamID, KeyID: cred.KeyID, Topic: cred.BundleID, Sandbox: !cred.Production,
			Key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})})
	case chat.LogProviderTwilio:
		p, cred, err := w.svc.TwilioCredentials(ctx, s.AppID)
		if err != nil {
			return nil, err
		}
		if !p.Enabled {
			return nil, errDisabled
		}
		return w.client.NewTwilio(TwilioConfig{AccountSID: cred.AccountSID, AuthToken: cred.AuthToken, From: cred.From})
	case chat.LogProviderSendGrid:
		p, cred, err := w.svc.SendGridCredentials(ctx, s.AppID)
		if err != nil {
			return nil, err
		}
		if !p.Enabled {
			return nil, errDisabled
		}
		return w.client.NewSendGrid(SendGridConfig{APIKey: cred.APIKey, FromEmail: p.SenderEmail, FromName: p.SenderName})
	}
	return nil, errors.New("unknown provider " + s.Provider)
}
