package httpapi

import (
	"net/http"
	"strings"

	"github.com/natter-chat/natter/chat"
)

// Online counts (docs/api-decisions.md, "Online counts"): the client SDK's
// getOnlineUserCount and getOnlineGroupMemberCount.
//
// The SDK does not ask the REST API: it posts to its chat host, the host of its socket,
// at https://<CHAT_HOST>/api/<WS_API_VERSION>/online-members (the settings' values, me.go),
// with the socket credential (the jwt of PUT /me) in the Authorization header and no port,
// so to 443 of that host. natter serves that path at its root, beside its sockets
// (sdkOnlineMembersPattern); a deployment that serves its sockets on 443 of the public host
// (as behind a load balancer) is reached there. The same answer is a REST endpoint too,
// POST /online-members under /v3, with the usual credentials (routes.go).

// sdkOnlineMembersPattern is the mux pattern of the path the SDK posts to, outside the
// versioned API. Any version segment is served: the SDK sends back the one the settings
// name.
const sdkOnlineMembersPattern = "POST /api/{version}/online-members"

// onlineMembersRequest is the body: the groups whose online members to count (the SDK's
// getOnlineGroupMemberCount); getOnlineUserCount sends none.
type onlineMembersRequest struct {
	Groups []string `json:"groups"`
}

// onlineMembersJSON is the answer's data, as the SDK reads it: onlineUsersCount for
// getOnlineUserCount, groups (guid → count) for getOnlineGroupMemberCount.
type onlineMembersJSON struct {
	OnlineUsersCount int64            `json:"onlineUsersCount"`
	Groups           map[string]int64 `json:"groups"`
}

// onlineMembers answers POST /online-members (and the SDK's path, sdkOnlineMembers).
func (s *Server) onlineMembers(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req onlineMembersRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	counts, err := s.svc.OnlineMembers(r.Context(), p, req.Groups)
	if err != nil {
		return err
	}
	writeData(w, r, onlineMembersJSON{OnlineUsersCount: counts.Users, Groups: counts.Groups}, nil)
	return nil
}

// sdkOnlineMembers serves the SDK's path. The SDK authenticates with the socket credential
// in Authorization (raw, as it sends it, or as a Bearer token) and the appId header; a
// request without Authorization is authenticated as every API request is (an apikey or an
// authToken header), so the path is no weaker and no stronger than the REST endpoint.
func (s *Server) sdkOnlineMembers() http.HandlerFunc {
	rest := s.authed(clientAllowed, s.onlineMembers)
	return func(w http.ResponseWriter, r *http.Request) {
		auths := r.Header.Values("Authorization")
		if len(auths) == 0 {
			rest(w, r)
			return
		}
		if err := s.bySocketCredential(w, r, auths, s.onlineMembers); err != nil {
			writeError(w, r, err)
		}
	}
}

// bySocketCredential runs h as the user of the socket credential in auths (the
// Authorization header's values), in the app the host or the appId header names (any app
// when neither does: the credential names its own).
func (s *Server) bySocketCredential(w http.ResponseWriter, r *http.Request, auths []string, h authHandler) error {
	if len(auths) > 1 {
		return chat.Errorf(chat.CodeAuthTokenUnknown, "The request sends the Authorization header more than once; send exactly one.")
	}
	jwt := strings.TrimSpace(auths[0])
	if scheme, rest, ok := strings.Cut(jwt, " "); ok && strings.EqualFold(scheme, "Bearer") {
		jwt = strings.TrimSpace(rest)
	}
	if jwt == "" {
		return chat.Errorf(chat.CodeEmptyAuthToken, "The Authorization header is empty; send the socket credential (the jwt of PUT /me).")
	}
	c, err := s.credentials(r)
	if err != nil {
		return err
	}
	p, err := s.svc.SocketPrincipal(r.Context(), c.AppID, jwt)
	if err != nil {
		return err
	}
	if err := s.rateLimit(w, r, p); err != nil {
		return err
	}
	return h(w, r, p)
}
