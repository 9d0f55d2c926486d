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
	Region                string `json:"REGION"`
	// Extensions lists the extensions enabled: natter runs none. Without the list the SDK's
	// isExtensionEnabled rejects (ERROR_EXTENSION_NOT_FOUND) rather than answer false.
	Extensions []struct{} `json:"extensions"`
	// FlagReasons are the reasons a message may be flagged for (GET /moderation/reasons):
	// the SDK's getFlagReasons reads them here, and its flagMessage sends only a reason
	// found among them (with none, it never settles).
	FlagReasons []reasonJSON `json:"flagReasons"`
	// The SDK's upload limits (getUploadLimits): it refuses a larger file, or more files,
	// before uploading.
	FileSizeMax  int64 `json:"file.size.max"`
	FileCountMax int   `json:"file.count.max"`
	// WSAPIVersion is the version segment of the chat host's own path the SDK's online
	// counts post to (onlinemembers.go); without it the SDK posts to /api//online-members.
	WSAPIVersion string `json:"WS_API_VERSION"`
	// Parameters are the hosted service's feature flags (sdkParameters).
	Parameters map[string]any `json:"parameters"`
}

// sdkWSAPIVersion is the settings' WS_API_VERSION: natter serves the SDK's path under any
// version (sdkOnlineMembersPattern), so it names the API's own.
const sdkWSAPIVersion = "v3.0"

// sdkParameters are the settings' parameters, the hosted service's feature flags, by the
// names the SDK reads (docs/sdk-surface.md, "Feature flags"). Without the object the SDK's
// isFeatureEnabled rejects every name (ERROR_FEATURE_NOT_FOUND), which its isPin…Enabled
// and isSaveMessageEnabled read as "disabled": the UI Kit hid pinning although natter pins.
// With it, a name it does not carry answers false, so only what natter serves is listed as
// enabled; what it does not (the AI features) is listed false, to say so on purpose.
var sdkParameters = map[string]any{
	// Pins and saves (chat/pins.go), and their limits. The app's pins of a message share
	// the conversation's 100 with the users'.
	"features.ux.messages.pinned.enabled":           true,
	"features.ux.messages.pinned.limit":             chat.MaxPinnedMessages,
	"features.ux.messages.pinned.system.limit":      chat.MaxPinnedMessages,
	"features.ux.messages.saved.enabled":            true,
	"features.ux.messages.saved.limit":              chat.MaxSavedMessages,
	"features.ux.conversations.pinned.enabled":      true,
	"features.ux.conversations.pinned.limit":        chat.MaxPinnedConversations,
	"features.ux.conversations.pinned.system.limit": chat.MaxSystemPinnedConversations,
	// Which messages move a conversation (getConversationUpdateSettings, which the UI Kit's
	// conversation list follows on live messages): in natter a top-level message or custom
	// message does; thread replies, group actions and calls do not (chat.Message.Counts,
	// docs/read-model.md), so a list that moved on them would disagree with the next fetch.
	"core.conversations.updateOnCustomMessage": true,
	"core.conversations.updateOnReplies":       false,
	"core.conversations.updateOnGroupActions":  false,
	"core.conversations.updateOnCallActivity":  false,
	// CometChat's AI service (isAIFeatureEnabled): natter runs none.
	"features.ai.accessible": false,
	"features.ai.enabled":    false,
}

// settings points the SDK at the public host (or, without one, at the host the request
// reached). Both API hosts are the same natter; sockets are served at its root path.
func (s *Server) settings(r *http.Request, p chat.Principal) (appSettingsJSON, error) {
	reasons, err := s.svc.Moderation().Reasons(r.Context(), p)
	if err != nil {
		return appSettingsJSON{}, err
	}
	flagReasons := make([]reasonJSON, len(reasons))
	for i, x := range reasons {
		flagReasons[i] = reasonOut(x)
	}
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
		Region: string(p.App.Region), Extensions: []struct{}{}, FlagReasons: flagReasons,
		FileSizeMax: s.svc.MaxFileSize(), FileCountMax: chat.MaxUploadFiles,
		WSAPIVersion: sdkWSAPIVersion, Parameters: sdkParameters}, nil
}

// me answers PUT and GET /me: the session's user, with its auth token and a socket
// credential. A PUT with profile fields updates the user first (the SDK's
// updateCurrentUserDetails).
func (s *Server) me(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	u, err := s.svc.Me(r.Context(), p)
	if err != nil {
		return err
	}
	if r.Method == http.MethodPut {
		// At login the SDK sends {platform, deviceId, appInfo}; natter keeps them with the
		// token (PUT /users/{uid}/auth_tokens/{authToken}). updateCurrentUserDetails sends
		// the user ({uid, name, avatar, …}), whose role and uid are the user's own.
		var req struct {
			updateUserRequest
			AppInfo struct {
				PushNotification struct {
					FCMDeviceToken string `json:"fcmDeviceToken"`
				} `json:"pushNotification"`
			} `json:"appInfo"`
		}
		if err := decodeJSON(r, &req); err != nil {
			return err
		}
		// The SDK's registerTokenForPushNotification sends the browser's FCM token here
		// (appInfo.pushNotification.fcmDeviceToken), rather than to the push tokens API.
		if tok := req.AppInfo.PushNotification.FCMDeviceToken; tok != "" {
			if _, err := s.svc.Notifications().RegisterPushToken(r.Context(), p, chat.PushTokenRegister{Platform: "fcm_web", FCMToken: &tok}); err != nil {
				return err
			}
		}
		if req.Name != nil || req.Avatar != nil || req.Link != nil || req.StatusMessage != nil || req.Metadata != nil || req.Tags != nil || req.Unset != nil {
			u, err = s.svc.UpdateUser(r.Context(), p, p.Actor, chat.UserChange{Name: req.Name, Avatar: req.Avatar, Link: req.Link,
				Role: req.Role, StatusMessage: req.StatusMessage, Metadata: req.Metadata, Tags: req.Tags, Unset: req.Unset})
			if err != nil {
				return err
			}
		}
	}
	settings, err := s.settings(r, p)
	if err != nil {
		return err
	}
	jwt, err := s.svc.SocketToken(r.Context(), p)
	if err != nil {
		return err
	}
	out := meJSON{User: wire.UserFor(p, u), JWT: jwt, Settings: settings}
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
	settings, err := s.settings(r, p)
	if err != nil {
		return err
	}
	writeData(w, r, settings, nil)
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
