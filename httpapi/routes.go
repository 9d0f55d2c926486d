package httpapi

import (
	"slices"
	"strings"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/dataimport"
)

// route is one endpoint and every setting of it, relative to the version prefix: each is
// served under /v3 and /v3.0 (versionPrefixes). Entries are made by serve or notYet; the
// setters below change a setting from its default, so a line names only what is particular
// to its endpoint.
type route struct {
	Method  string // "" on a not-yet entry: every method
	Path    string // ending in "/" on a not-yet entry: the whole subtree
	access  access // who may call it (auth.go)
	handler authHandler

	rate      chat.RateClass // its rate limit (ratelimit.go); RateStandard unless rated
	maxBody   int64          // its body cap where larger than Options.MaxBodyBytes (middleware.go)
	files     bool           // it takes files (multipart): its cap is an upload's, its JSON the general one
	emptyLast bool           // also served with its last segment empty
	notYet    bool           // the hosted service's, not served: 501 (not yet, or refused)
	refused   bool           // a not-yet entry natter has decided against serving (refused)
}

// serve is an endpoint natter serves: pattern is "METHOD /path", as the mux, the OpenAPI
// contract and the docs spell it.
func serve(pattern string, a access, h authHandler) route {
	method, path, _ := strings.Cut(pattern, " ")
	return route{Method: method, Path: path, access: a, handler: h}
}

// notYet is an endpoint of the hosted service natter does not serve yet ("[METHOD ]/path"). It
// answers 501 ERR_NOT_IMPLEMENTED rather than 404, so a client knows the path is right and the
// feature is missing; but only after authentication with any valid key or auth token: a caller
// without one learns that first.
func notYet(pattern string) route {
	r := serve(pattern, anyCredential, notImplemented)
	if !strings.Contains(pattern, " ") {
		r.Method, r.Path = "", pattern
	}
	r.notYet = true
	return r
}

// refused is an endpoint of the hosted service natter has decided not to serve, answered as a
// not-yet entry is (501 ERR_NOT_IMPLEMENTED, after authentication) but by h, whose message says
// why and what to use instead: the code is the one a client already checks for a missing
// feature, and the message tells a person reading the log that waiting will not help. The
// reasons are in docs/api-decisions.md.
func refused(pattern string, h authHandler) route {
	r := notYet(pattern)
	r.handler, r.refused = h, true
	return r
}

// rated puts the endpoint in a rate class of its own. The hosted service counts user login
// and connection, creating and deleting a user, and creating and joining a group as core
// (API-reference §6), and data import on a limit of its own.
func (r route) rated(c chat.RateClass) route { r.rate = c; return r }

// bodyUpTo lets the endpoint's body grow to n bytes (if the general cap is lower): an upload.
func (r route) bodyUpTo(n int64) route { r.maxBody = n; return r }

// takesFiles lets the endpoint's body carry files (files.go): up to Options.MaxUploadBytes,
// while its JSON, its form fields and what an Idempotency-Key keeps stay at the general cap.
func (r route) takesFiles(s *Server) route { r.maxBody, r.files = s.opt.MaxUploadBytes, true; return r }

// alsoEmptyLast serves the endpoint with its last segment empty too, where the mux would
// answer that with "no such API": ".../reactions/" is a request for the reaction endpoint with
// an empty reaction, which its handler refuses as such.
func (r route) alsoEmptyLast() route { r.emptyLast = true; return r }

// pattern is the endpoint's mux pattern under prefix: "POST /v3/users", "/v3/threads".
func (r route) pattern(prefix string) string {
	return strings.TrimSpace(r.Method + " " + prefix + r.Path)
}

// patterns are all the mux patterns the endpoint is served at under prefix.
func (r route) patterns(prefix string) []string {
	p := r.pattern(prefix)
	if !r.emptyLast {
		return []string{p}
	}
	return []string{p, p[:strings.LastIndexByte(p, '/')+1] + "{$}"}
}

// endpoints is the one list of endpoints, each with all of its settings: those natter
// serves and those it does not serve yet, beside their families.
func (s *Server) endpoints() []route {
	return []route{
		serve("POST /apikeys", fullAccessOnly, s.createAPIKey),
		serve("GET /apikeys", fullAccessOnly, s.listAPIKeys),
		serve("GET /apikeys/{apiKey}", fullAccessOnly, s.getAPIKey),
		serve("PUT /apikeys/{apiKey}", fullAccessOnly, s.updateAPIKey),
		serve("DELETE /apikeys/{apiKey}", fullAccessOnly, s.deleteAPIKey),

		serve("PUT /me", clientAllowed, s.me),
		serve("GET /me", clientAllowed, s.me),
		serve("DELETE /me", clientAllowed, s.logout),
		serve("GET /settings", clientAllowed, s.appSettings),
		serve("POST /user_sessions", clientAllowed, s.userSession),
		// Presence counts (onlinemembers.go): the SDK posts to its chat host's root path, served
		// beside this table (server.go); this is the same answer for REST clients.
		serve("POST /online-members", clientAllowed, s.onlineMembers),

		serve("POST /users", authOnlyAllowed, s.createUser).rated(chat.RateCore),
		serve("GET /users", clientAllowed, s.listUsers),
		serve("PUT /users", fullAccessOnly, s.reactivateUsers),
		serve("DELETE /users", fullAccessOnly, s.deactivateUsers),
		serve("GET /users/{uid}", clientAllowed, s.getUser),
		serve("PUT /users/{uid}", clientAllowed, s.updateUser), // a token: its own profile
		serve("DELETE /users/{uid}", fullAccessOnly, s.deleteUser).rated(chat.RateCore),

		serve("POST /users/{uid}/auth_tokens", authOnlyAllowed, s.createAuthToken).rated(chat.RateCore), // login: a client's auth token
		serve("GET /users/{uid}/auth_tokens", fullAccessOnly, s.listAuthTokens),
		serve("DELETE /users/{uid}/auth_tokens", fullAccessOnly, s.flushAuthTokens),
		serve("GET /users/{uid}/auth_tokens/{authToken}", fullAccessOnly, s.getAuthToken),
		serve("PUT /users/{uid}/auth_tokens/{authToken}", fullAccessOnly, s.updateAuthToken),
		serve("DELETE /users/{uid}/auth_tokens/{authToken}", fullAccessOnly, s.deleteAuthToken),

		serve("POST /users/{uid}/friends", fullAccessOnly, s.addFriends),
		serve("GET /users/{uid}/friends", fullAccessOnly, s.listFriends),
		serve("DELETE /users/{uid}/friends", fullAccessOnly, s.removeFriends),

		serve("POST /users/{uid}/blockedusers", fullAccessOnly, s.blockUsers),
		serve("GET /users/{uid}/blockedusers", fullAccessOnly, s.listBlocked),
		serve("DELETE /users/{uid}/blockedusers", fullAccessOnly, s.unblockUsers),
		serve("POST /blockedusers", clientAllowed, s.blockUsers),
		serve("GET /blockedusers", clientAllowed, s.listBlocked),
		serve("DELETE /blockedusers", clientAllowed, s.unblockUsers),

		serve("POST /messages", clientAllowed, s.sendMessage).takesFiles(s),
		serve("POST /files/upload-url", clientAllowed, s.uploadURL),
		serve("POST /bots/{uid}/messages", fullAccessOnly, s.sendBotMessage),
		serve("GET /messages", clientAllowed, s.listMessages),
		serve("GET /users/{uid}/messages", clientAllowed, s.listUserMessages),
		serve("GET /groups/{guid}/messages", clientAllowed, s.listGroupMessages),
		serve("GET /messages/{id}/thread", clientAllowed, s.listThread),
		serve("POST /messages/{id}/thread", clientAllowed, s.sendThreadMessage).takesFiles(s),
		serve("POST /messages/{id}/thread/subscription", clientAllowed, s.subscribeThread),
		serve("DELETE /messages/{id}/thread/subscription", clientAllowed, s.unsubscribeThread),
		serve("GET /messages/{id}", clientAllowed, s.getMessage),
		serve("PUT /messages/{id}", clientAllowed, s.editMessage),
		serve("DELETE /messages/{id}", clientAllowed, s.deleteMessage),
		serve("GET /messages/{id}/reactions", clientAllowed, s.listReactions),
		serve("GET /messages/{id}/reactions/{reaction}", clientAllowed, s.listReactions),
		serve("POST /messages/{id}/reactions/{reaction}", clientAllowed, s.addReaction).alsoEmptyLast(),
		serve("DELETE /messages/{id}/reactions/{reaction}", clientAllowed, s.removeReaction).alsoEmptyLast(),
		serve("POST /messages/{id}/pin", clientAllowed, s.pinMessage),
		serve("DELETE /messages/{id}/pin", clientAllowed, s.unpinMessage),
		serve("POST /messages/{id}/save", clientAllowed, s.saveMessage),
		serve("DELETE /messages/{id}/save", clientAllowed, s.unsaveMessage),
		notYet("/messages/{id}/interacted"),
		serve("GET /threads", clientAllowed, s.listThreads),
		serve("GET /users/{uid}/threads", clientAllowed, s.listUserThreads),
		serve("GET /groups/{guid}/threads", clientAllowed, s.listGroupThreads),

		// Moderation (docs/moderation.md): a user flags a message; the rest is the app's.
		serve("POST /messages/{id}/flagged", clientAllowed, s.flagMessage),
		serve("POST /moderation/reasons", fullAccessOnly, s.createReason),
		serve("GET /moderation/reasons", clientAllowed, s.listReasons),
		serve("GET /moderation/reasons/{id}", clientAllowed, s.getReason),
		serve("PUT /moderation/reasons/{id}", fullAccessOnly, s.updateReason),
		serve("DELETE /moderation/reasons/{id}", fullAccessOnly, s.deleteReason),
		serve("GET /moderation/flagged-messages", fullAccessOnly, s.listFlagged(false)),
		serve("PATCH /moderation/flagged-messages/{id}", fullAccessOnly, s.reviewFlagged),
		serve("GET /moderation/reviewed-messages", fullAccessOnly, s.listFlagged(true)),
		serve("GET /moderation/blocked-messages", fullAccessOnly, s.listBlockedMessages),
		serve("PATCH /moderation/blocked-messages/{id}", fullAccessOnly, s.reviewBlocked),
		serve("POST /moderation/rules", fullAccessOnly, s.createRule),
		serve("GET /moderation/rules", fullAccessOnly, s.listRules),
		serve("GET /moderation/rules/{ruleId}", fullAccessOnly, s.getRule),
		serve("PUT /moderation/rules/{ruleId}", fullAccessOnly, s.updateRule),
		serve("DELETE /moderation/rules/{ruleId}", fullAccessOnly, s.deleteRule),
		serve("GET /moderation/rules/{ruleId}/revisions", fullAccessOnly, s.listRuleRevisions),
		serve("POST /moderation/keywords", fullAccessOnly, s.createKeywordList).bodyUpTo(MaxKeywordBodyBytes),
		serve("GET /moderation/keywords", fullAccessOnly, s.listKeywordLists),
		serve("GET /moderation/keywords/{keywordId}", fullAccessOnly, s.getKeywordList),
		serve("PUT /moderation/keywords/{keywordId}", fullAccessOnly, s.updateKeywordList).bodyUpTo(MaxKeywordBodyBytes),
		serve("DELETE /moderation/keywords/{keywordId}", fullAccessOnly, s.deleteKeywordList),
		// The hosted "moderate before delivery" service: refused, every method, the list and
		// each message (docs/api-decisions.md, "Moderation before delivery").
		refused("/moderation/messages", moderationServiceRefused),
		refused("/moderation/messages/", moderationServiceRefused),

		// Webhooks: natter's own management API (docs/webhooks.md).
		serve("POST /webhooks", fullAccessOnly, s.createWebhook),
		serve("GET /webhooks", fullAccessOnly, s.listWebhooks),
		serve("GET /webhooks/{id}", fullAccessOnly, s.getWebhook),
		serve("PUT /webhooks/{id}", fullAccessOnly, s.updateWebhook),
		serve("DELETE /webhooks/{id}", fullAccessOnly, s.deleteWebhook),
		serve("POST /webhooks/{id}/secrets", fullAccessOnly, s.rotateWebhookSecret),
		serve("GET /webhooks/{id}/deliveries", fullAccessOnly, s.listDeliveries),
		serve("POST /webhooks/{id}/replay", fullAccessOnly, s.replayWebhook),

		// Notifications, the settings plane (docs/notifications.md): the app's settings with an
		// API key; a user's own with its auth token too, which the client SDK sends to the
		// preferences and mutes under /notifications/push/v1/.
		serve("GET /notifications/v1/settings", fullAccessOnly, s.getNotificationSettings),
		serve("PATCH /notifications/v1/settings", fullAccessOnly, s.updateNotificationSettings),
		serve("DELETE /notifications/v1/settings", fullAccessOnly, s.resetNotificationSettings),
		serve("GET /notifications/v1/preferences", clientAllowed, s.getNotificationPrefs),
		serve("PATCH /notifications/v1/preferences", clientAllowed, s.updateNotificationPrefs),
		serve("DELETE /notifications/v1/preferences", clientAllowed, s.resetNotificationPrefs),
		serve("GET /notifications/push/v1/preferences", clientAllowed, s.getNotificationPrefs),
		serve("PATCH /notifications/push/v1/preferences", clientAllowed, s.updateNotificationPrefs),
		serve("DELETE /notifications/push/v1/preferences", clientAllowed, s.resetNotificationPrefs),
		serve("GET /notifications/v1/preferences/mute", clientAllowed, s.listMutedConversations),
		serve("PUT /notifications/v1/preferences/mute", clientAllowed, s.muteConversations),
		serve("DELETE /notifications/v1/preferences/mute", clientAllowed, s.unmuteConversations),
		serve("GET /notifications/push/v1/preferences/mute", clientAllowed, s.listMutedConversations),
		serve("PUT /notifications/push/v1/preferences/mute", clientAllowed, s.muteConversations),
		serve("DELETE /notifications/push/v1/preferences/mute", clientAllowed, s.unmuteConversations),
		serve("GET /notifications/v1/preferences/timezone", clientAllowed, s.getNotificationTimezone),
		serve("PATCH /notifications/v1/preferences/timezone", clientAllowed, s.setNotificationTimezone),
		serve("GET /notifications/v1/contact-details", clientAllowed, s.getContactDetails),
		serve("PATCH /notifications/v1/contact-details", clientAllowed, s.updateContactDetails),
		serve("DELETE /notifications/v1/contact-details", clientAllowed, s.deleteContactDetails),
		serve("GET /notifications/v1/logs", fullAccessOnly, s.listNotificationLogs),
		// Notification providers: the app's (docs/notifications.md). Push tokens: a client
		// app's, with its user's auth token, as the SDK registers them; or an API key naming
		// the auth token.
		serve("GET /notifications/push/v1/providers/fcm", fullAccessOnly, s.listFCMProviders),
		serve("POST /notifications/push/v1/providers/fcm", fullAccessOnly, s.createFCMProvider),
		serve("PUT /notifications/push/v1/providers/fcm", fullAccessOnly, s.updateFCMProvider),
		serve("DELETE /notifications/push/v1/providers/fcm/{providerId}", fullAccessOnly, s.deletePushProvider(chat.ProviderFCM)),
		serve("PUT /notifications/push/v1/providers/fcm/default/{providerId}", fullAccessOnly, s.defaultPushProvider(chat.ProviderFCM)),
		serve("GET /notifications/push/v1/providers/apns", fullAccessOnly, s.listAPNsProviders),
		serve("POST /notifications/push/v1/providers/apns", fullAccessOnly, s.createAPNsProvider),
		serve("PUT /notifications/push/v1/providers/apns", fullAccessOnly, s.updateAPNsProvider),
		serve("DELETE /notifications/push/v1/providers/apns/{providerId}", fullAccessOnly, s.deletePushProvider(chat.ProviderAPNs)),
		serve("PUT /notifications/push/v1/providers/apns/default/{providerId}", fullAccessOnly, s.defaultPushProvider(chat.ProviderAPNs)),
		serve("GET /notifications/push/v1/providers/custom", fullAccessOnly, s.getCustom(chat.ChannelPush)),
		serve("POST /notifications/push/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelPush)),
		serve("PUT /notifications/push/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelPush)),
		serve("DELETE /notifications/push/v1/providers/custom", fullAccessOnly, s.deleteProvider(chat.ProviderCustomPush)),
		serve("GET /notifications/sms/v1/providers/twilio", fullAccessOnly, s.getTwilio),
		serve("POST /notifications/sms/v1/providers/twilio", fullAccessOnly, s.saveTwilio),
		serve("PUT /notifications/sms/v1/providers/twilio", fullAccessOnly, s.saveTwilio),
		serve("DELETE /notifications/sms/v1/providers/twilio", fullAccessOnly, s.deleteProvider(chat.ProviderTwilio)),
		serve("GET /notifications/sms/v1/providers/custom", fullAccessOnly, s.getCustom(chat.ChannelSMS)),
		serve("POST /notifications/sms/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelSMS)),
		serve("PUT /notifications/sms/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelSMS)),
		serve("DELETE /notifications/sms/v1/providers/custom", fullAccessOnly, s.deleteProvider(chat.ProviderCustomSMS)),
		serve("GET /notifications/email/v1/providers/sendgrid", fullAccessOnly, s.getSendGrid),
		serve("POST /notifications/email/v1/providers/sendgrid", fullAccessOnly, s.saveSendGrid),
		serve("PUT /notifications/email/v1/providers/sendgrid", fullAccessOnly, s.saveSendGrid),
		serve("DELETE /notifications/email/v1/providers/sendgrid", fullAccessOnly, s.deleteProvider(chat.ProviderSendGrid)),
		serve("GET /notifications/email/v1/providers/custom", fullAccessOnly, s.getCustom(chat.ChannelEmail)),
		serve("POST /notifications/email/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelEmail)),
		serve("PUT /notifications/email/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelEmail)),
		serve("DELETE /notifications/email/v1/providers/custom", fullAccessOnly, s.deleteProvider(chat.ProviderCustomEmail)),
		serve("POST /notifications/push/v1/tokens", clientAllowed, s.registerPushToken),
		serve("GET /notifications/push/v1/tokens", clientAllowed, s.listPushTokens),
		serve("DELETE /notifications/push/v1/tokens/{pushToken}", clientAllowed, s.deletePushToken),
		serve("DELETE /notifications/push/v1/tokens", clientAllowed, s.unregisterPushTokens),

		serve("GET /conversations", clientAllowed, s.listConversations),
		serve("GET /conversations/{conversationId}", clientAllowed, s.getConversationByID),
		serve("DELETE /conversations/{conversationId}", clientAllowed, s.deleteConversationByID),
		serve("GET /users/{uid}/conversation", clientAllowed, s.getConversation),
		serve("PUT /users/{uid}/conversation", clientAllowed, s.updateConversation),
		serve("DELETE /users/{uid}/conversation", clientAllowed, s.resetConversation),
		serve("POST /users/{uid}/conversation/delivered", clientAllowed, s.markConversation(chat.MarkDelivered)),
		serve("POST /users/{uid}/conversation/read", clientAllowed, s.markConversation(chat.MarkRead)),
		serve("DELETE /users/{uid}/conversation/read", clientAllowed, s.markConversation(chat.MarkUnread)),
		serve("POST /users/{uid}/conversation/pin", clientAllowed, s.pinConversation),
		serve("DELETE /users/{uid}/conversation/pin", clientAllowed, s.unpinConversation),
		notYet("/users/{uid}/conversation/"),
		serve("GET /groups/{guid}/conversation", clientAllowed, s.getConversation),
		serve("PUT /groups/{guid}/conversation", clientAllowed, s.updateConversation),
		serve("DELETE /groups/{guid}/conversation", clientAllowed, s.resetConversation),
		serve("POST /groups/{guid}/conversation/delivered", clientAllowed, s.markConversation(chat.MarkDelivered)),
		serve("POST /groups/{guid}/conversation/read", clientAllowed, s.markConversation(chat.MarkRead)),
		serve("DELETE /groups/{guid}/conversation/read", clientAllowed, s.markConversation(chat.MarkUnread)),
		serve("POST /groups/{guid}/conversation/pin", clientAllowed, s.pinConversation),
		serve("DELETE /groups/{guid}/conversation/pin", clientAllowed, s.unpinConversation),
		notYet("/groups/{guid}/conversation/"),
		serve("GET /conversations/pinned", fullAccessOnly, s.listSystemPins),
		serve("PUT /conversations/pinned", fullAccessOnly, s.replaceSystemPins),

		serve("POST /groups", clientAllowed, s.createGroup).rated(chat.RateCore),
		serve("GET /groups", clientAllowed, s.listGroups),
		serve("GET /groups/{guid}", clientAllowed, s.getGroup),
		serve("PUT /groups/{guid}", clientAllowed, s.updateGroup),
		serve("DELETE /groups/{guid}", clientAllowed, s.deleteGroup),
		serve("PATCH /groups/{guid}/owner", clientAllowed, s.transferGroup),

		serve("POST /groups/{guid}/members", clientAllowed, s.addMembers).rated(chat.RateCore), // join (and add members)
		serve("PUT /groups/{guid}/members", clientAllowed, s.putMembers),                       // the client SDKs' add (addMembersToGroup)
		serve("GET /groups/{guid}/members", clientAllowed, s.listMembers),
		serve("DELETE /groups/{guid}/members", clientAllowed, s.leaveGroup),
		serve("PUT /groups/{guid}/members/{uid}", clientAllowed, s.changeScope),
		serve("DELETE /groups/{guid}/members/{uid}", clientAllowed, s.kickMember),
		serve("POST /groups/{guid}/bannedusers/{uid}", clientAllowed, s.banUser),
		serve("DELETE /groups/{guid}/bannedusers/{uid}", clientAllowed, s.unbanUser),
		serve("GET /groups/{guid}/bannedusers", clientAllowed, s.listBanned),

		serve("POST /roles", fullAccessOnly, s.createRole),
		serve("GET /roles", fullAccessOnly, s.listRoles),
		serve("GET /roles/{role}", fullAccessOnly, s.getRole),
		serve("PUT /roles/{role}", fullAccessOnly, s.updateRole),
		serve("DELETE /roles/{role}", fullAccessOnly, s.deleteRole),
		serve("POST /roles/{role}/restrictedfeatures", fullAccessOnly, s.restrictFeatures),
		serve("GET /roles/{role}/restrictedfeatures", fullAccessOnly, s.listRestrictedFeatures),
		serve("DELETE /roles/{role}/restrictedfeatures", fullAccessOnly, s.allowFeatures),
		serve("GET /roles/{role}/permissions", fullAccessOnly, s.listRolePermissions),
		serve("PUT /roles/{role}/permissions", fullAccessOnly, s.setRolePermissions),
		serve("DELETE /roles/{role}/permissions/{permission}", fullAccessOnly, s.unsetRolePermission),
		serve("GET /groups/{guid}/scopes/{scope}/permissions", fullAccessOnly, s.listScopePermissions),
		serve("PUT /groups/{guid}/scopes/{scope}/permissions", fullAccessOnly, s.setScopePermissions),
		serve("DELETE /groups/{guid}/scopes/{scope}/permissions/{permission}", fullAccessOnly, s.unsetScopePermission),
		// AI agents: bots answered by an HTTP endpoint (docs/agents.md). PUT is natter's, PATCH
		// the hosted service's.
		serve("POST /ai-agents/agents", fullAccessOnly, s.createAgent),
		serve("GET /ai-agents/agents", fullAccessOnly, s.listAgents),
		serve("GET /ai-agents/agents/{uid}", fullAccessOnly, s.getAgent),
		serve("PUT /ai-agents/agents/{uid}", fullAccessOnly, s.updateAgent),
		serve("PATCH /ai-agents/agents/{uid}", fullAccessOnly, s.updateAgent),
		serve("DELETE /ai-agents/agents/{uid}", fullAccessOnly, s.deleteAgent),
		// The hosted AI agents' other groups: tools, integrations, the Agent Builder.
		notYet("/ai-agents/tools"),
		notYet("/ai-agents/tools/"),
		notYet("/ai-agents/integrations"),
		notYet("/ai-agents/integrations/"),
		notYet("/ai-agents/agent-builder/"),
		serve("POST /calls", clientAllowed, s.initiateCall),
		serve("GET /calls", clientAllowed, s.listCalls),
		serve("GET /calls/{sessionId}", clientAllowed, s.getCall),
		serve("PUT /calls/{sessionId}", clientAllowed, s.updateCall),
		serve("PATCH /calls/{sessionId}/type", clientAllowed, s.changeCallType),
		serve("GET /calls/{sessionId}/transcriptions", clientAllowed, s.listTranscriptions),
		serve("POST /calls/{sessionId}/transcriptions", fullAccessOnly, s.addTranscription),

		serve("GET /stats", fullAccessOnly, s.usageMetrics),
		serve("GET /stats/messages", fullAccessOnly, s.messageStats),

		// Data import (docs/import.md): a fullAccess key's, on a rate limit of its own.
		serve("POST /data_import/users", fullAccessOnly, serveImport(s, "users", userImports)).rated(chat.RateImport).bodyUpTo(dataimport.MaxBodyBytes),
		serve("POST /data_import/groups", fullAccessOnly, serveImport(s, "groups", groupImports)).rated(chat.RateImport).bodyUpTo(dataimport.MaxBodyBytes),
		serve("POST /data_import/members", fullAccessOnly, serveImport(s, "members", memberImports)).rated(chat.RateImport).bodyUpTo(dataimport.MaxBodyBytes),
		serve("POST /data_import/messages", fullAccessOnly, serveImport(s, "messages", messageImports)).rated(chat.RateImport).bodyUpTo(dataimport.MaxBodyBytes),
	}
}

// routes are the endpoints natter serves.
func (s *Server) routes() []route {
	return slices.DeleteFunc(s.endpoints(), func(r route) bool { return r.notYet })
}

// Routes lists every implemented endpoint as "METHOD /path" relative to the version prefix;
// the OpenAPI test checks that api/openapi.yaml describes each.
func Routes() []string {
	var out []string
	for _, r := range (&Server{}).routes() {
		out = append(out, r.pattern(""))
	}
	return out
}
