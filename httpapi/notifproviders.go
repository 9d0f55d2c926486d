package httpapi

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// Notification providers (docs/notifications.md, "Providers and push tokens"): the app's,
// for API keys only. Credentials are never answered: private keys not at all, the other
// secrets in their masked form (chat.SecretHint). Changes answer the hosted service's
// acknowledgement; reads answer the hosted shapes, pushProviders lists for push.

// --- FCM and APNs ---------------------------------------------------------------------------

// serviceAccountJSON is a service account as answers show it: without its private key.
type serviceAccountJSON struct {
	ProjectID    string `json:"project_id"`
	ClientEmail  string `json:"client_email"`
	PrivateKeyID string `json:"private_key_id,omitempty"`
}

type fcmProviderJSON struct {
	ProviderID             string                     `json:"providerId"`
	IsDefault              bool                       `json:"isDefault"`
	ServiceAccountFilename string                     `json:"serviceAccountFilename,omitempty"`
	ServiceAccountCreds    serviceAccountJSON         `json:"serviceAccountCreds"`
	NotificationInPayload  chat.NotificationInPayload `json:"notificationInPayload"`
	CreatedAt              int64                      `json:"createdAt"`
	UpdatedAt              int64                      `json:"updatedAt"`
}

type apnsProviderJSON struct {
	ProviderID              string `json:"providerId"`
	IsDefault               bool   `json:"isDefault"`
	KeyID                   string `json:"keyId"`
	TeamID                  string `json:"teamId"`
	BundleID                string `json:"bundleId"`
	P8KeyFilename           string `json:"p8KeyFilename,omitempty"`
	IncludeContentAvailable bool   `json:"includeContentAvailable"`
	IncludeMutableContent   bool   `json:"includeMutableContent"`
	ProductionMode          bool   `json:"productionMode"`
	CreatedAt               int64  `json:"createdAt"`
	UpdatedAt               int64  `json:"updatedAt"`
}

type pushProvidersJSON[T any] struct {
	PushProviders []T `json:"pushProviders"`
}

type fcmProviderRequest struct {
	ProviderID             *string                     `json:"providerId"`
	ServiceAccountFilename *string                     `json:"serviceAccountFilename"`
	ServiceAccountCreds    *chat.ServiceAccount        `json:"serviceAccountCreds"`
	NotificationInPayload  *chat.NotificationInPayload `json:"notificationInPayload"`
}

func (r fcmProviderRequest) input() chat.FCMProviderInput {
	return chat.FCMProviderInput{ProviderID: deref(r.ProviderID), ServiceAccount: r.ServiceAccountCreds, Filename: r.ServiceAccountFilename,
		NotificationInPayload: r.NotificationInPayload}
}

type apnsProviderRequest struct {
	ProviderID              *string `json:"providerId"`
	KeyID                   *string `json:"keyId"`
	TeamID                  *string `json:"teamId"`
	BundleID                *string `json:"bundleId"`
	P8KeyFilename           *string `json:"p8KeyFilename"`
	P8Key                   *string `json:"p8Key"`
	IncludeContentAvailable *bool   `json:"includeContentAvailable"`
	IncludeMutableContent   *bool   `json:"includeMutableContent"`
	ProductionMode          *bool   `json:"productionMode"`
}

func (r apnsProviderRequest) input() chat.APNsProviderInput {
	return chat.APNsProviderInput{ProviderID: deref(r.ProviderID), KeyID: r.KeyID, TeamID: r.TeamID, BundleID: r.BundleID, Filename: r.P8KeyFilename,
		P8Key: r.P8Key, IncludeContentAvailable: r.IncludeContentAvailable, IncludeMutableContent: r.IncludeMutableContent, Production: r.ProductionMode}
}

func (s *Server) listFCMProviders(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	ps, err := chat.FCM.List(r.Context(), s.svc, p)
	if err != nil {
		return err
	}
	out := pushProvidersJSON[fcmProviderJSON]{PushProviders: make([]fcmProviderJSON, len(ps))}
	for i, pr := range ps {
		out.PushProviders[i] = fcmProviderJSON{ProviderID: pr.ID, IsDefault: pr.Default, ServiceAccountFilename: pr.Filename,
			ServiceAccountCreds:   serviceAccountJSON{ProjectID: pr.ProjectID, ClientEmail: pr.ClientEmail, PrivateKeyID: pr.PrivateKeyID},
			NotificationInPayload: pr.NotificationInPayload, CreatedAt: pr.CreatedAt, UpdatedAt: pr.UpdatedAt}
	}
	writeData(w, r, out, nil)
	return nil
}

func (s *Server) createFCMProvider(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req fcmProviderRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	pr, err := chat.FCM.Create(r.Context(), s.svc, p, req.input())
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The FCM provider " + pr.ID + " has been added."}, nil)
	return nil
}

func (s *Server) updateFCMProvider(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req fcmProviderRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	pr, err := chat.FCM.Update(r.Context(), s.svc, p, req.input())
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The FCM provider " + pr.ID + " has been updated."}, nil)
	return nil
}

func (s *Server) listAPNsProviders(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	ps, err := chat.APNs.List(r.Context(), s.svc, p)
	if err != nil {
		return err
	}
	out := pushProvidersJSON[apnsProviderJSON]{PushProviders: make([]apnsProviderJSON, len(ps))}
	for i, pr := range ps {
		out.PushProviders[i] = apnsProviderJSON{ProviderID: pr.ID, IsDefault: pr.Default, KeyID: pr.KeyID, TeamID: pr.TeamID, BundleID: pr.BundleID,
			P8KeyFilename: pr.Filename, IncludeContentAvailable: pr.IncludeContentAvailable, IncludeMutableContent: pr.IncludeMutableContent,
			ProductionMode: pr.Production, CreatedAt: pr.CreatedAt, UpdatedAt: pr.UpdatedAt}
	}
	writeData(w, r, out, nil)
	return nil
}

func (s *Server) createAPNsProvider(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req apnsProviderRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	pr, err := chat.APNs.Create(r.Context(), s.svc, p, req.input())
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The APNs provider " + pr.ID + " has been added."}, nil)
	return nil
}

func (s *Server) updateAPNsProvider(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req apnsProviderRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	pr, err := chat.APNs.Update(r.Context(), s.svc, p, req.input())
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The APNs provider " + pr.ID + " has been updated."}, nil)
	return nil
}

// deletePushProvider answers DELETE …/fcm/{providerId} and …/apns/{providerId}.
func (s *Server) deletePushProvider(kind chat.ProviderKind) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		id := r.PathValue("providerId")
		if err := s.svc.Notifications().DeletePushProvider(r.Context(), p, kind, id); err != nil {
			return err
		}
		writeData(w, r, success{true, "The provider " + id + " has been deleted."}, nil)
		return nil
	}
}

// defaultPushProvider answers PUT …/fcm/default/{providerId} and …/apns/default/{providerId}.
func (s *Server) defaultPushProvider(kind chat.ProviderKind) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		id := r.PathValue("providerId")
		if err := s.svc.Notifications().SetDefaultPushProvider(r.Context(), p, kind, id); err != nil {
			return err
		}
		writeData(w, r, success{true, "The provider " + id + " is the default now."}, nil)
		return nil
	}
}

// --- Twilio and SendGrid ------------------------------------------------------------------

type twilioJSON struct {
	TwilioAccountSID        string `json:"twilioAccountSID"`
	TwilioAuthToken         string `json:"twilioAuthToken"` // masked
	TwilioSenderPhoneNumber string `json:"twilioSenderPhoneNumber"`
	IsEnabled               bool   `json:"isEnabled"`
}

type twilioRequest struct {
	TwilioAccountSID        *string `json:"twilioAccountSID"`
	TwilioAuthToken         *string `json:"twilioAuthToken"`
	TwilioSenderPhoneNumber *string `json:"twilioSenderPhoneNumber"`
	IsEnabled               *bool   `json:"isEnabled"`
}

func twilioOut(t chat.TwilioProvider) twilioJSON {
	return twilioJSON{TwilioAccountSID: t.AccountSID, TwilioAuthToken: t.AuthTokenHint, TwilioSenderPhoneNumber: t.SenderPhoneNumber, IsEnabled: t.Enabled}
}

func (s *Server) getTwilio(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	t, err := chat.Twilio.Get(r.Context(), s.svc, p)
	if err != nil {
		return err
	}
	writeData(w, r, twilioOut(t), nil)
	return nil
}

// saveTwilio answers POST (create) and PUT (update) of the Twilio provider.
func (s *Server) saveTwilio(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req twilioRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	in := chat.TwilioInput{AccountSID: req.TwilioAccountSID, AuthToken: req.TwilioAuthToken, SenderPhoneNumber: req.TwilioSenderPhoneNumber, Enabled: req.IsEnabled}
	save := chat.Twilio.Update
	if r.Method == http.MethodPost {
		save = chat.Twilio.Create
	}
	t, err := save(r.Context(), s.svc, p, in)
	if err != nil {
		return err
	}
	writeData(w, r, twilioOut(t), nil)
	return nil
}

type sendGridJSON struct {
	SendGridAPIKey             string `json:"sendGridApiKey"` // masked
	SendGridTemplateID         string `json:"sendGridTemplateID"`
	SendGridUnsubscribeGroupID string `json:"sendGridUnsubscribeGroupID"`
	SenderName                 string `json:"senderName"`
	SenderEmail                string `json:"senderEmail"`
	AllowEmailReplies          bool   `json:"allowEmailReplies"`
	SenderEmailForReplies      string `json:"senderEmailForReplies,omitempty"`
	// RepliesWebhook is where the hosted service takes SendGrid's inbound replies. natter
	// receives no email replies, so it is always empty.
	RepliesWebhook string `json:"repliesWebhook"`
	IsEnabled      bool   `json:"isEnabled"`
}

type sendGridRequest struct {
	SendGridAPIKey             *string `json:"sendGridApiKey"`
	SendGridTemplateID         *string `json:"sendGridTemplateID"`
	SendGridUnsubscribeGroupID *string `json:"sendGridUnsubscribeGroupID"`
	SenderName                 *string `json:"senderName"`
	SenderEmail                *string `json:"senderEmail"`
	AllowEmailReplies          *bool   `json:"allowEmailReplies"`
	SenderEmailForReplies      *string `json:"senderEmailForReplies"`
	IsEnabled                  *bool   `json:"isEnabled"`
}

func sendGridOut(g chat.SendGridProvider) sendGridJSON {
	return sendGridJSON{SendGridAPIKey: g.APIKeyHint, SendGridTemplateID: g.TemplateID, SendGridUnsubscribeGroupID: g.UnsubscribeGroupID,
		SenderName: g.SenderName, SenderEmail: g.SenderEmail, AllowEmailReplies: g.AllowEmailReplies, SenderEmailForReplies: g.SenderEmailForReplies,
		IsEnabled: g.Enabled}
}

func (s *Server) getSendGrid(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	g, err := chat.SendGrid.Get(r.Context(), s.svc, p)
	if err != nil {
		return err
	}
	writeData(w, r, sendGridOut(g), nil)
	return nil
}

// saveSendGrid answers POST (create) and PUT (update) of the SendGrid provider.
func (s *Server) saveSendGrid(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req sendGridRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	in := chat.SendGridInput{APIKey: req.SendGridAPIKey, TemplateID: req.SendGridTemplateID, UnsubscribeGroupID: req.SendGridUnsubscribeGroupID,
		SenderName: req.SenderName, SenderEmail: req.SenderEmail, AllowEmailReplies: req.AllowEmailReplies, SenderEmailForReplies: req.SenderEmailForReplies,
		Enabled: req.IsEnabled}
	save := chat.SendGrid.Update
	if r.Method == http.MethodPost {
		save = chat.SendGrid.Create
	}
	g, err := save(r.Context(), s.svc, p, in)
	if err != nil {
		return err
	}
	writeData(w, r, sendGridOut(g), nil)
	return nil
}

// deleteProvider answers DELETE of the providers an app has one of.
func (s *Server) deleteProvider(kind chat.ProviderKind) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		if err := s.svc.Notifications().DeleteProvider(r.Context(), p, kind); err != nil {
			return err
		}
		writeData(w, r, success{true, "The provider has been deleted."}, nil)
		return nil
	}
}

// --- custom providers -----------------------------------------------------------------------

// customJSON is a custom provider; the username and the masked password only with Basic
// auth, useStoredPhNo for SMS and useStoredEmailID for email.
type customJSON struct {
	BasicAuthUsername string `json:"basicAuthUsername,omitempty"`
	BasicAuthPassword string `json:"basicAuthPassword,omitempty"` // masked
	IsEnabled         bool   `json:"isEnabled"`
	UseBasicAuth      bool   `json:"useBasicAuth"`
	UseStoredPhNo     *bool  `json:"useStoredPhNo,omitempty"`
	UseStoredEmailID  *bool  `json:"useStoredEmailID,omitempty"`
	WebhookURL        string `json:"webhookURL"`
}

type customRequest struct {
	IsEnabled         *bool   `json:"isEnabled"`
	WebhookURL        *string `json:"webhookURL"`
	UseBasicAuth      *bool   `json:"useBasicAuth"`
	BasicAuthUsername *string `json:"basicAuthUsername"`
	BasicAuthPassword *string `json:"basicAuthPassword"`
	UseStoredPhNo     *bool   `json:"useStoredPhNo"`
	UseStoredEmailID  *bool   `json:"useStoredEmailID"`
}

func customOut(c chat.CustomProvider) customJSON {
	out := customJSON{IsEnabled: c.Enabled, UseBasicAuth: c.UseBasicAuth, WebhookURL: c.WebhookURL}
	if c.UseBasicAuth {
		out.BasicAuthUsername, out.BasicAuthPassword = c.Username, c.PasswordHint
	}
	switch c.Channel {
	case chat.ChannelSMS:
		out.UseStoredPhNo = &c.UseStored
	case chat.ChannelEmail:
		out.UseStoredEmailID = &c.UseStored
	}
	return out
}

// writeCustom answers a custom provider: push's in a pushProviders list, the others alone.
func writeCustom(w http.ResponseWriter, r *http.Request, c chat.Channel, cp *chat.CustomProvider) {
	if c != chat.ChannelPush {
		writeData(w, r, customOut(*cp), nil)
		return
	}
	out := pushProvidersJSON[customJSON]{PushProviders: []customJSON{}}
	if cp != nil {
		out.PushProviders = append(out.PushProviders, customOut(*cp))
	}
	writeData(w, r, out, nil)
}

// getCustom answers GET …/providers/custom. The push channel's is a list, empty when the
// app has none; the others' are ERR_PROVIDER_NOT_FOUND then.
func (s *Server) getCustom(c chat.Channel) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		cp, err := chat.Custom(c).Get(r.Context(), s.svc, p)
		if c == chat.ChannelPush && chat.ErrorCode(err) == chat.CodeProviderNotFound {
			writeCustom(w, r, c, nil)
			return nil
		}
		if err != nil {
			return err
		}
		writeCustom(w, r, c, &cp)
		return nil
	}
}

// saveCustom answers POST (create) and PUT (update) of …/providers/custom.
func (s *Server) saveCustom(c chat.Channel) authHandler {
	return func(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
		var req customRequest
		if err := decodeJSON(r, &req); err != nil {
			return err
		}
		in := chat.CustomProviderInput{Enabled: req.IsEnabled, WebhookURL: req.WebhookURL, UseBasicAuth: req.UseBasicAuth,
			Username: req.BasicAuthUsername, Password: req.BasicAuthPassword}
		switch c {
		case chat.ChannelSMS:
			in.UseStored = req.UseStoredPhNo
		case chat.ChannelEmail:
			in.UseStored = req.UseStoredEmailID
		}
		save := chat.Custom(c).Update
		if r.Method == http.MethodPost {
			save = chat.Custom(c).Create
		}
		cp, err := save(r.Context(), s.svc, p, in)
		if err != nil {
			return err
		}
		writeCustom(w, r, c, &cp)
		return nil
	}
}
