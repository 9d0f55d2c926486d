package console

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/natter-chat/natter/chat"
)

type notificationsData struct {
	FCM      []chat.FCMProvider
	APNs     []chat.APNsProvider
	Twilio   *chat.TwilioProvider
	SendGrid *chat.SendGridProvider
	Custom   []customRow
}

type customRow struct {
	Kind, Channel string
	Provider      *chat.CustomProvider
}

// notifications lists the app's notification providers: FCM and APNs with their ids and
// default, Twilio, SendGrid and the custom webhooks configured or not. No credential shows:
// the service keeps them sealed and answers none; the page shows not even their masked hints.
func (c *Console) notifications(w http.ResponseWriter, r *http.Request, q *request) error {
	ctx := r.Context()
	var d notificationsData
	var err error
	if d.FCM, err = chat.FCM.List(ctx, c.svc, q.p); err != nil {
		return err
	}
	if d.APNs, err = chat.APNs.List(ctx, c.svc, q.p); err != nil {
		return err
	}
	tw, err := chat.Twilio.Get(ctx, c.svc, q.p)
	if d.Twilio, err = configured(tw, err); err != nil {
		return err
	}
	sg, err := chat.SendGrid.Get(ctx, c.svc, q.p)
	if d.SendGrid, err = configured(sg, err); err != nil {
		return err
	}
	for _, ch := range []chat.Channel{chat.ChannelPush, chat.ChannelSMS, chat.ChannelEmail} {
		kind := chat.Custom(ch)
		cp, err := kind.Get(ctx, c.svc, q.p)
		row := customRow{Kind: string(kind.Kind), Channel: string(ch)}
		if row.Provider, err = configured(cp, err); err != nil {
			return err
		}
		d.Custom = append(d.Custom, row)
	}
	c.show(w, r, q, "notifications", q.page("Notification providers", "notifications", d))
	return nil
}

// configured is the provider a read found, nil when the app has none, or the read's error.
func configured[T any](v T, err error) (*T, error) {
	switch {
	case chat.ErrorCode(err) == chat.CodeProviderNotFound:
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &v, nil
}

// providerKind reads a path's provider kind, as the service spells it: one with ids (FCM,
// APNs) when ids, else one an app has one of. It refuses any other as the service refuses a
// provider it does not have.
func providerKind(name string, ids bool) (chat.ProviderKind, error) {
	if sp, ok := chat.ProviderSpecOf(chat.ProviderKind(name)); ok && sp.IDs == ids {
		return sp.Kind, nil
	}
	if len(name) > 50 {
		name = name[:50] + "…"
	}
	return "", chat.Errorf(chat.CodeProviderNotFound, "There are no %q providers.", name)
}

// notificationChange runs a change and shows the page again: with the service's refusal, or
// after a redirect.
func (c *Console) notificationChange(w http.ResponseWriter, r *http.Request, q *request, err error) error {
	if err != nil {
		if q.retry(err, r) {
			return c.notifications(w, r, q)
		}
		return err
	}
	c.redirect(w, r, Prefix+"/notifications")
	return nil
}

// deletePushProvider deletes an FCM or APNs provider, as DELETE
// /notifications/push/v1/providers/{fcm,apns}/{providerId} does (the default one only when
// it is the last of its kind).
func (c *Console) deletePushProvider(w http.ResponseWriter, r *http.Request, q *request) error {
	kind, err := providerKind(r.PathValue("kind"), true)
	if err == nil {
		err = c.svc.Notifications().DeletePushProvider(r.Context(), q.p, kind, r.PathValue("id"))
	}
	return c.notificationChange(w, r, q, err)
}

// defaultPushProvider makes an FCM or APNs provider its kind's default.
func (c *Console) defaultPushProvider(w http.ResponseWriter, r *http.Request, q *request) error {
	kind, err := providerKind(r.PathValue("kind"), true)
	if err == nil {
		err = c.svc.Notifications().SetDefaultPushProvider(r.Context(), q.p, kind, r.PathValue("id"))
	}
	return c.notificationChange(w, r, q, err)
}

// deleteSingleProvider deletes the Twilio, SendGrid or a custom provider.
func (c *Console) deleteSingleProvider(w http.ResponseWriter, r *http.Request, q *request) error {
	kind, err := providerKind(r.PathValue("kind"), false)
	if err == nil {
		err = c.svc.Notifications().DeleteProvider(r.Context(), q.p, kind)
	}
	return c.notificationChange(w, r, q, err)
}

// createPushProvider adds an FCM provider from a pasted service-account file, or an APNs
// provider from its ids and a pasted .p8 key, as POST /notifications/push/v1/providers/fcm
// and …/apns do. A refusal shows the page again with the form as sent but for its key: the
// template never writes a credential back into a page.
func (c *Console) createPushProvider(w http.ResponseWriter, r *http.Request, q *request) error {
	kind, err := providerKind(r.PathValue("kind"), true)
	if err == nil {
		id := strings.TrimSpace(r.PostFormValue("providerId"))
		if kind == chat.ProviderFCM {
			err = c.createFCM(r, q, id)
		} else {
			_, err = chat.APNs.Create(r.Context(), c.svc, q.p, chat.APNsProviderInput{ProviderID: id,
				KeyID: formText(r, "keyId"), TeamID: formText(r, "teamId"), BundleID: formText(r, "bundleId"),
				P8Key: formText(r, "p8Key"), Production: formBool(r, "productionMode"),
				IncludeContentAvailable: formBool(r, "includeContentAvailable"), IncludeMutableContent: formBool(r, "includeMutableContent")})
		}
	}
	return c.notificationChange(w, r, q, err)
}

// createFCM reads the service-account file as Google gives it (fields natter does not keep,
// such as token_uri, are ignored) and adds the provider.
func (c *Console) createFCM(r *http.Request, q *request, id string) error {
	var sa chat.ServiceAccount
	if err := json.Unmarshal([]byte(r.PostFormValue("serviceAccountCreds")), &sa); err != nil {
		return chat.InvalidField("serviceAccountCreds", "Paste the service account's JSON key file, as the Firebase console gives it.")
	}
	_, err := chat.FCM.Create(r.Context(), c.svc, q.p, chat.FCMProviderInput{ProviderID: id, ServiceAccount: &sa})
	return err
}

// formText is a form field trimmed, as the service's optional inputs take it.
func formText(r *http.Request, name string) *string {
	v := strings.TrimSpace(r.PostFormValue(name))
	return &v
}

// formBool is a checkbox: checked or not.
func formBool(r *http.Request, name string) *bool {
	v := r.PostFormValue(name) != ""
	return &v
}
