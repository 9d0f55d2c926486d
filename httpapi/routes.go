package httpapi

import (
	"net/http"

	"github.com/natter-chat/natter/chat"
)

// route is one endpoint, relative to the version prefix. Every route is served under /v3
// and /v3.0.
type route struct {
	Method  string
	Path    string
	access  access
	handler authHandler
}

// routes is the one list of endpoints.
func (s *Server) routes() []route {
	return []route{
		{http.MethodPost, "/apikeys", fullAccessOnly, s.createAPIKey},
		{http.MethodGet, "/apikeys", fullAccessOnly, s.listAPIKeys},
		{http.MethodGet, "/apikeys/{apiKey}", fullAccessOnly, s.getAPIKey},
		{http.MethodPut, "/apikeys/{apiKey}", fullAccessOnly, s.updateAPIKey},
		{http.MethodDelete, "/apikeys/{apiKey}", fullAccessOnly, s.deleteAPIKey},

		{http.MethodPost, "/users", authOnlyAllowed, s.createUser},
		{http.MethodGet, "/users", fullAccessOnly, s.listUsers},
		{http.MethodPut, "/users", fullAccessOnly, s.reactivateUsers},
		{http.MethodDelete, "/users", fullAccessOnly, s.deactivateUsers},
		{http.MethodGet, "/users/{uid}", fullAccessOnly, s.getUser},
		{http.MethodPut, "/users/{uid}", fullAccessOnly, s.updateUser},
		{http.MethodDelete, "/users/{uid}", fullAccessOnly, s.deleteUser},

		{http.MethodPost, "/messages", fullAccessOnly, s.sendMessage},
		{http.MethodGet, "/messages", fullAccessOnly, s.listMessages},
		{http.MethodGet, "/users/{uid}/messages", fullAccessOnly, s.listUserMessages},
		{http.MethodGet, "/groups/{guid}/messages", fullAccessOnly, s.listGroupMessages},
		{http.MethodGet, "/messages/{id}/thread", fullAccessOnly, s.listThread},
		{http.MethodPost, "/messages/{id}/thread", fullAccessOnly, s.sendThreadMessage},
		{http.MethodGet, "/messages/{id}", fullAccessOnly, s.getMessage},
		{http.MethodPut, "/messages/{id}", fullAccessOnly, s.editMessage},
		{http.MethodDelete, "/messages/{id}", fullAccessOnly, s.deleteMessage},
		{http.MethodGet, "/messages/{id}/reactions", fullAccessOnly, s.listReactions},
		{http.MethodGet, "/messages/{id}/reactions/{reaction}", fullAccessOnly, s.listReactions},
		{http.MethodPost, "/messages/{id}/reactions/{reaction}", fullAccessOnly, s.addReaction},
		{http.MethodDelete, "/messages/{id}/reactions/{reaction}", fullAccessOnly, s.removeReaction},

		{http.MethodGet, "/conversations", fullAccessOnly, s.listConversations},
		{http.MethodGet, "/conversations/{conversationId}", fullAccessOnly, s.getConversationByID},
		{http.MethodDelete, "/conversations/{conversationId}", fullAccessOnly, s.deleteConversationByID},
		{http.MethodGet, "/users/{uid}/conversation", fullAccessOnly, s.getConversation},
		{http.MethodPut, "/users/{uid}/conversation", fullAccessOnly, s.updateConversation},
		{http.MethodDelete, "/users/{uid}/conversation", fullAccessOnly, s.resetConversation},
		{http.MethodPost, "/users/{uid}/conversation/delivered", fullAccessOnly, s.markConversation(chat.MarkDelivered)},
		{http.MethodPost, "/users/{uid}/conversation/read", fullAccessOnly, s.markConversation(chat.MarkRead)},
		{http.MethodDelete, "/users/{uid}/conversation/read", fullAccessOnly, s.markConversation(chat.MarkUnread)},
		{http.MethodGet, "/groups/{guid}/conversation", fullAccessOnly, s.getConversation},
		{http.MethodPut, "/groups/{guid}/conversation", fullAccessOnly, s.updateConversation},
		{http.MethodDelete, "/groups/{guid}/conversation", fullAccessOnly, s.resetConversation},
		{http.MethodPost, "/groups/{guid}/conversation/delivered", fullAccessOnly, s.markConversation(chat.MarkDelivered)},
		{http.MethodPost, "/groups/{guid}/conversation/read", fullAccessOnly, s.markConversation(chat.MarkRead)},
		{http.MethodDelete, "/groups/{guid}/conversation/read", fullAccessOnly, s.markConversation(chat.MarkUnread)},

		{http.MethodPost, "/groups", fullAccessOnly, s.createGroup},
		{http.MethodGet, "/groups", fullAccessOnly, s.listGroups},
		{http.MethodGet, "/groups/{guid}", fullAccessOnly, s.getGroup},
		{http.MethodPut, "/groups/{guid}", fullAccessOnly, s.updateGroup},
		{http.MethodDelete, "/groups/{guid}", fullAccessOnly, s.deleteGroup},
		{http.MethodPatch, "/groups/{guid}/owner", fullAccessOnly, s.transferGroup},

		{http.MethodPost, "/groups/{guid}/members", fullAccessOnly, s.addMembers},
		{http.MethodGet, "/groups/{guid}/members", fullAccessOnly, s.listMembers},
		{http.MethodDelete, "/groups/{guid}/members", fullAccessOnly, s.leaveGroup},
		{http.MethodPut, "/groups/{guid}/members/{uid}", fullAccessOnly, s.changeScope},
		{http.MethodDelete, "/groups/{guid}/members/{uid}", fullAccessOnly, s.kickMember},
		{http.MethodPost, "/groups/{guid}/bannedusers/{uid}", fullAccessOnly, s.banUser},
		{http.MethodDelete, "/groups/{guid}/bannedusers/{uid}", fullAccessOnly, s.unbanUser},
		{http.MethodGet, "/groups/{guid}/bannedusers", fullAccessOnly, s.listBanned},
	}
}

// Routes lists every implemented endpoint as "METHOD /path" relative to the version prefix;
// the OpenAPI test checks that api/openapi.yaml describes each.
func Routes() []string {
	var s Server
	var out []string
	for _, r := range s.routes() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// notYet are the hosted service's endpoints natter does not serve yet. After authentication
// (any valid key) they answer 501 ERR_NOT_IMPLEMENTED rather than 404, so a client knows the
// path is right and the feature is missing. Patterns are relative to the version prefix; those ending in "/" cover a
// whole subtree.
var notYet = []string{
	"/users/{uid}/auth_tokens", "/users/{uid}/auth_tokens/",
	"/users/{uid}/friends", "/users/{uid}/blockedusers",
	"/users/{uid}/conversation/", "/groups/{guid}/conversation/",
	"/groups/{guid}/scopes/",
	"/messages/{id}/thread/", "/messages/{id}/pin", "/messages/{id}/save",
	"/messages/{id}/interacted", "/messages/{id}/flagged", "/threads",
	"/bots/", "/roles", "/roles/",
	"/calls", "/calls/", "/notifications/", "/moderation/", "/stats", "/stats/",
	"/data_import/", "/ai-agents/",
}
