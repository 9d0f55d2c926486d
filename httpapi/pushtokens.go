package httpapi

import (
	"net/http"
	"time"

	"github.com/natter-chat/natter/chat"
)

// Push tokens (docs/notifications.md, "Providers and push tokens"): a client app registers
// its device's token with its user's auth token in the authToken header, as the official
// SDK does (POST with {platform, providerId, fcmToken, timezone}; DELETE with no body on
// logout); a server-side app with an API key names the auth token in authToken (the body,
// or the query of GET). The auth token in answers is masked, as auth token lists show it.

type pushTokenJSON struct {
	AuthToken     string `json:"authToken"` // masked
	PushTokenType string `json:"pushTokenType"`
	CreatedAt     string `json:"createdAt"` // ISO 8601, as the hosted service answers
	Platform      string `json:"platform"`
	ProviderID    string `json:"providerId"`
	PushToken     string `json:"pushToken"`
	UID           string `json:"uid"`
	UpdatedAt     string `json:"updatedAt"`
}

type pushTokensJSON struct {
	Success    bool            `json:"success,omitempty"`
	Message    string          `json:"message,omitempty"`
	PushTokens []pushTokenJSON `json:"pushTokens"`
}

func isoMillis(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

func pushTokensOut(ts []chat.PushToken) []pushTokenJSON {
	out := make([]pushTokenJSON, len(ts))
	for i, t := range ts {
		kind := "chat"
		if t.Kind == chat.PushVoIP {
			kind = "voip"
		}
		out[i] = pushTokenJSON{AuthToken: t.AuthMasked, PushTokenType: kind, CreatedAt: isoMillis(t.CreatedAt), Platform: t.Platform,
			ProviderID: t.ProviderID, PushToken: t.Token, UID: t.UID, UpdatedAt: isoMillis(t.UpdatedAt)}
	}
	return out
}

type pushTokenRequest struct {
	Platform    string  `json:"platform"`
	ProviderID  string  `json:"providerId"`
	FCMToken    *string `json:"fcmToken"`
	DeviceToken *string `json:"deviceToken"`
	VoIPToken   *string `json:"voipToken"`
	AuthToken   string  `json:"authToken"`
	Timezone    string  `json:"timezone"`
}

func (s *Server) registerPushToken(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req pushTokenRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	t, err := s.svc.Notifications().RegisterPushToken(r.Context(), p, chat.PushTokenRegister{Platform: req.Platform, ProviderID: req.ProviderID,
		FCMToken: req.FCMToken, DeviceToken: req.DeviceToken, VoIPToken: req.VoIPToken, AuthToken: req.AuthToken, Timezone: req.Timezone})
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "The push token has been registered for the " + t.Platform + " platform."}, nil)
	return nil
}

func (s *Server) listPushTokens(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	all := q.boolean("all")
	if err := q.err(); err != nil {
		return err
	}
	ts, err := s.svc.Notifications().PushTokens(r.Context(), p, q.str("authToken"), all)
	if err != nil {
		return err
	}
	writeData(w, r, pushTokensJSON{PushTokens: pushTokensOut(ts)}, nil)
	return nil
}

// unregisterPushTokens answers DELETE /tokens: the auth token's push tokens, or with all=true
// every one of its user, answered with what was deleted.
func (s *Server) unregisterPushTokens(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		AuthToken string `json:"authToken"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	q := newQuery(r)
	all := q.boolean("all")
	if err := q.err(); err != nil {
		return err
	}
	ts, err := s.svc.Notifications().UnregisterPushTokens(r.Context(), p, req.AuthToken, all)
	if err != nil {
		return err
	}
	writeData(w, r, pushTokensJSON{Success: true, Message: "The push tokens have been unregistered.", PushTokens: pushTokensOut(ts)}, nil)
	return nil
}

// deletePushToken answers DELETE /tokens/{pushToken}.
func (s *Server) deletePushToken(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		AuthToken string `json:"authToken"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	t, err := s.svc.Notifications().DeletePushToken(r.Context(), p, req.AuthToken, r.PathValue("pushToken"))
	if err != nil {
		return err
	}
	writeData(w, r, pushTokensJSON{Success: true, Message: "The push token has been deleted.", PushTokens: pushTokensOut([]chat.PushToken{t})}, nil)
	return nil
}
