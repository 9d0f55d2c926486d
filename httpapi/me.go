package httpapi

import (
	"net"
	"net/http"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/wire"
)

// The session endpoints of the client SDK (docs/realtime.md): the logged-in user with its
// socket credential and the settings that point the SDK back at this deployment.

// meJSON is PUT/GET /me's answer: the user, its auth token and the socket credential.
type meJSON struct {
	wire.User
	JWT      string          `json:"jwt"`
	Settings appSettingsJSON `json:"settings"`
}

// appSettingsJSON are the app settings the SDK reads (and caches) to build its URLs.
type appSettingsJSON struct {
	ChatHost              string `json:"CHAT_HOST"`
	ChatWSSPort           string `json:"CHAT_WSS_PORT"`
	ChatUseSSL            bool   `json:"CHAT_USE_SSL"`
	AdminAPIHost          string `json:"ADMIN_API_HOST"`
	ClientAPIHost         string `json:"CLIENT_API_HOST"`
	ChatAPIVersion        string `json:"CHAT_API_VERSION"`
	Mode                  string `json:"MODE"`
	AnalyticsPingDisabled bool   `json:"ANALYTICS_PING_DISABLED"`
	DenyFallbackToPolling bool   `json:"DENY_FALLBACK_TO_POLLING"`
	AppVersion            int    `json:"APP_VERSION"`
	// The SDK's upload limits (getUploadLimits): it refuses a larger file, or more files,
	// before uploading.
	FileSizeMax  int64  `json:"file.size.max"`
	FileCountMax int    `json:"file.count.max"`
	Region       string `json:"REGION"`
}

// settings points the SDK at the public host (or, without one, at the host the request
// reached). Both API hosts are the same natter; sockets are served at its root path.
func (s *Server) settings(r *http.Request, p chat.Principal) appSettingsJSON {
	host := s.opt.PublicHost
	if host == "" {
		host = r.Host
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = host, "443"
	}
	return appSettingsJSON{ChatHost: name, ChatWSSPort: port, ChatUseSSL: true, AdminAPIHost: host, ClientAPIHost: host,
		ChatAPIVersion: "v3.0", Mode: "DEFAULT", AnalyticsPingDisabled: true, DenyFallbackToPolling: true, AppVersion: 4,
		FileSizeMax: s.svc.MaxFileSize(), FileCountMax: chat.MaxUploadFiles,
		Region: string(p.App.Region)}
}

// me answers PUT and GET /me: the session's user, with its auth token and a socket
// credential.
func (s *Server) me(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if r.Method == http.MethodPut {
		// The SDK sends {platform, deviceId, appInfo}; natter keeps them with the token
		// (PUT /users/{uid}/auth_tokens/{authToken}), so the body only has to be JSON.
		var ignored map[string]any
		if err := decodeJSON(r, &ignored); err != nil {
			return err
		}
	}
	u, err := s.svc.Me(r.Context(), p)
	if err != nil {
		return err
	}
	jwt, err := s.svc.SocketToken(r.Context(), p)
	if err != nil {
		return err
	}
	out := meJSON{User: wire.UserFor(p, u), JWT: jwt, Settings: s.settings(r, p)}
	out.AuthToken = r.Header.Get("authToken")
	writeData(w, r, out, nil)
	return nil
}

// logout answers DELETE /me: the session's auth token is deleted.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if err := s.svc.Logout(r.Context(), p, r.Header.Get("authToken")); err != nil {
		return err
	}
	writeData(w, r, map[string]any{"success": true, "message": "The user has been logged out."}, nil)
	return nil
}

// appSettings answers GET /settings.
func (s *Server) appSettings(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	writeData(w, r, s.settings(r, p), nil)
	return nil
}

// userSession answers POST /user_sessions, which the SDK calls after login and whose
// answer it ignores: natter keeps no sessions beyond the auth token.
func (s *Server) userSession(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	if _, err := s.svc.Me(r.Context(), p); err != nil {
		return err
	}
	writeData(w, r, map[string]any{"success": true, "message": "The session has been recorded."}, nil)
	return nil
}
