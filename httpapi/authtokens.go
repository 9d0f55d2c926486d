package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// authTokenJSON is the auth token shape. authToken is the full token where the caller holds
// it (on create, and when named in the path) and masked in lists; the client's platform,
// user agent and app info only when set.
type authTokenJSON struct {
	UID       string          `json:"uid"`
	AuthToken string          `json:"authToken"`
	CreatedAt int64           `json:"createdAt"`
	Platform  string          `json:"platform,omitempty"`
	UserAgent string          `json:"userAgent,omitempty"`
	AppInfo   json.RawMessage `json:"appInfo,omitempty"`
}

func authTokenOut(t chat.AuthToken, shown string) authTokenJSON {
	return authTokenJSON{UID: t.UID, AuthToken: shown, CreatedAt: t.CreatedAt, Platform: t.Platform, UserAgent: t.UserAgent,
		AppInfo: wire.StoredObject(t.AppInfo)}
}

// createAuthTokenRequest is what POST /users/{uid}/auth_tokens reads: force, and what the
// official SDK says about the client that logs in (it also sends deviceId, ignored).
type createAuthTokenRequest struct {
	Force     bool            `json:"force"`
	Platform  string          `json:"platform"`
	UserAgent string          `json:"userAgent"`
	AppInfo   json.RawMessage `json:"appInfo"`
}

func (s *Server) createAuthToken(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req createAuthTokenRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	t, err := s.svc.CreateAuthToken(r.Context(), p, r.PathValue("uid"), chat.AuthTokenCreate{Force: req.Force,
		Platform: req.Platform, UserAgent: req.UserAgent, AppInfo: req.AppInfo})
	if err != nil {
		return err
	}
	writeData(w, r, authTokenOut(t.AuthToken, t.Value), nil)
	return nil
}

func (s *Server) listAuthTokens(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	q := newQuery(r)
	page := q.page()
	if err := q.err(); err != nil {
		return err
	}
	ts, total, err := s.svc.ListAuthTokens(r.Context(), p, r.PathValue("uid"), page)
	if err != nil {
		return err
	}
	out := make([]authTokenJSON, len(ts))
	for i, t := range ts {
		out[i] = authTokenOut(t, t.Masked())
	}
	writeData(w, r, out, pageMeta(page, len(out), total))
	return nil
}

func (s *Server) getAuthToken(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	token := r.PathValue("authToken")
	t, err := s.svc.AuthToken(r.Context(), p, r.PathValue("uid"), token)
	if err != nil {
		return err
	}
	writeData(w, r, authTokenOut(t, token), nil)
	return nil
}

type updateAuthTokenRequest struct {
	Platform  *string         `json:"platform"`
	UserAgent *string         `json:"userAgent"`
	AppInfo   json.RawMessage `json:"appInfo"`
}

func (s *Server) updateAuthToken(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req updateAuthTokenRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	token := r.PathValue("authToken")
	t, err := s.svc.UpdateAuthToken(r.Context(), p, r.PathValue("uid"), token,
		chat.AuthTokenChange{Platform: req.Platform, UserAgent: req.UserAgent, AppInfo: req.AppInfo})
	if err != nil {
		return err
	}
	writeData(w, r, authTokenOut(t, token), nil)
	return nil
}

func (s *Server) deleteAuthToken(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.DeleteAuthToken(r.Context(), p, r.PathValue("uid"), r.PathValue("authToken")); err != nil {
		return err
	}
	writeData(w, r, success{true, "The auth token has been deleted successfully."}, nil)
	return nil
}

// flushAuthTokens answers with the hosted service's message.
func (s *Server) flushAuthTokens(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	uid, err := s.svc.FlushAuthTokens(r.Context(), p, r.PathValue("uid"))
	if err != nil {
		return err
	}
	writeData(w, r, success{true, "Cleared Auth Tokens successfully for uid " + uid + "."}, nil)
	return nil
}
