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

		{http.MethodPut, "/me", clientAllowed, s.me},
		{http.MethodGet, "/me", clientAllowed, s.me},
		{http.MethodDelete, "/me", clientAllowed, s.logout},
		{http.MethodGet, "/settings", clientAllowed, s.appSettings},
		{http.MethodPost, "/user_sessions", clientAllowed, s.userSession},

		{http.MethodPost, "/users", authOnlyAllowed, s.createUser},
		{http.MethodGet, "/users", clientAllowed, s.listUsers},
		{http.MethodPut, "/users", fullAccessOnly, s.reactivateUsers},
		{http.MethodDelete, "/users", fullAccessOnly, s.deactivateUsers},
		{http.MethodGet, "/users/{uid}", clientAllowed, s.getUser},
		{http.MethodPut, "/users/{uid}", clientAllowed, s.updateUser}, // a token: its own profile
		{http.MethodDelete, "/users/{uid}", fullAccessOnly, s.deleteUser},

		{http.MethodPost, "/users/{uid}/auth_tokens", authOnlyAllowed, s.createAuthToken},
		{http.MethodGet, "/users/{uid}/auth_tokens", fullAccessOnly, s.listAuthTokens},
		{http.MethodDelete, "/users/{uid}/auth_tokens", fullAccessOnly, s.flushAuthTokens},
		{http.MethodGet, "/users/{uid}/auth_tokens/{authToken}", fullAccessOnly, s.getAuthToken},
		{http.MethodPut, "/users/{uid}/auth_tokens/{authToken}", fullAccessOnly, s.updateAuthToken},
		{http.MethodDelete, "/users/{uid}/auth_tokens/{authToken}", fullAccessOnly, s.deleteAuthToken},

		{http.MethodPost, "/users/{uid}/friends", fullAccessOnly, s.addFriends},
		{http.MethodGet, "/users/{uid}/friends", fullAccessOnly, s.listFriends},
		{http.MethodDelete, "/users/{uid}/friends", fullAccessOnly, s.removeFriends},

		{http.MethodPost, "/users/{uid}/blockedusers", fullAccessOnly, s.blockUsers},
		{http.MethodGet, "/users/{uid}/blockedusers", fullAccessOnly, s.listBlocked},
		{http.MethodDelete, "/users/{uid}/blockedusers", fullAccessOnly, s.unblockUsers},
		{http.MethodPost, "/blockedusers", clientAllowed, s.blockUsers},
		{http.MethodGet, "/blockedusers", clientAllowed, s.listBlocked},
		{http.MethodDelete, "/blockedusers", clientAllowed, s.unblockUsers},

		{http.MethodPost, "/messages", clientAllowed, s.sendMessage},
		{http.MethodPost, "/bots/{uid}/messages", fullAccessOnly, s.sendBotMessage},
		{http.MethodGet, "/messages", clientAllowed, s.listMessages},
		{http.MethodGet, "/users/{uid}/messages", clientAllowed, s.listUserMessages},
		{http.MethodGet, "/groups/{guid}/messages", clientAllowed, s.listGroupMessages},
		{http.MethodGet, "/messages/{id}/thread", clientAllowed, s.listThread},
		{http.MethodPost, "/messages/{id}/thread", clientAllowed, s.sendThreadMessage},
		{http.MethodGet, "/messages/{id}", clientAllowed, s.getMessage},
		{http.MethodPut, "/messages/{id}", clientAllowed, s.editMessage},
		{http.MethodDelete, "/messages/{id}", clientAllowed, s.deleteMessage},
		{http.MethodGet, "/messages/{id}/reactions", clientAllowed, s.listReactions},
		{http.MethodGet, "/messages/{id}/reactions/{reaction}", clientAllowed, s.listReactions},
		{http.MethodPost, "/messages/{id}/reactions/{reaction}", clientAllowed, s.addReaction},
		{http.MethodDelete, "/messages/{id}/reactions/{reaction}", clientAllowed, s.removeReaction},
		{http.MethodPost, "/messages/{id}/pin", clientAllowed, s.pinMessage},
		{http.MethodDelete, "/messages/{id}/pin", clientAllowed, s.unpinMessage},
		{http.MethodPost, "/messages/{id}/save", clientAllowed, s.saveMessage},
		{http.MethodDelete, "/messages/{id}/save", clientAllowed, s.unsaveMessage},

		// Moderation (docs/moderation.md): a user flags a message; the rest is the app's.
		{http.MethodPost, "/messages/{id}/flagged", clientAllowed, s.flagMessage},
		{http.MethodPost, "/moderation/reasons", fullAccessOnly, s.createReason},
		{http.MethodGet, "/moderation/reasons", clientAllowed, s.listReasons},
		{http.MethodGet, "/moderation/reasons/{id}", clientAllowed, s.getReason},
		{http.MethodPut, "/moderation/reasons/{id}", fullAccessOnly, s.updateReason},
		{http.MethodDelete, "/moderation/reasons/{id}", fullAccessOnly, s.deleteReason},
		{http.MethodGet, "/moderation/flagged-messages", fullAccessOnly, s.listFlagged(false)},
		{http.MethodPatch, "/moderation/flagged-messages/{id}", fullAccessOnly, s.reviewFlagged},
		{http.MethodGet, "/moderation/reviewed-messages", fullAccessOnly, s.listFlagged(true)},
		{http.MethodGet, "/moderation/blocked-messages", fullAccessOnly, s.listBlockedMessages},
		{http.MethodPatch, "/moderation/blocked-messages/{id}", fullAccessOnly, s.reviewBlocked},
		{http.MethodPost, "/moderation/rules", fullAccessOnly, s.createRule},
		{http.MethodGet, "/moderation/rules", fullAccessOnly, s.listRules},
		{http.MethodGet, "/moderation/rules/{ruleId}", fullAccessOnly, s.getRule},
		{http.MethodPut, "/moderation/rules/{ruleId}", fullAccessOnly, s.updateRule},
		{http.MethodDelete, "/moderation/rules/{ruleId}", fullAccessOnly, s.deleteRule},
		{http.MethodGet, "/moderation/rules/{ruleId}/revisions", fullAccessOnly, s.listRuleRevisions},
		{http.MethodPost, "/moderation/keywords", fullAccessOnly, s.createKeywordList},
		{http.MethodGet, "/moderation/keywords", fullAccessOnly, s.listKeywordLists},
		{http.MethodGet, "/moderation/keywords/{keywordId}", fullAccessOnly, s.getKeywordList},
		{http.MethodPut, "/moderation/keywords/{keywordId}", fullAccessOnly, s.updateKeywordList},
		{http.MethodDelete, "/moderation/keywords/{keywordId}", fullAccessOnly, s.deleteKeywordList},

		// Webhooks: natter's own management API (docs/webhooks.md).
		{http.MethodPost, "/webhooks", fullAccessOnly, s.createWebhook},
		{http.MethodGet, "/webhooks", fullAccessOnly, s.listWebhooks},
		{http.MethodGet, "/webhooks/{id}", fullAccessOnly, s.getWebhook},
		{http.MethodPut, "/webhooks/{id}", fullAccessOnly, s.updateWebhook},
		{http.MethodDelete, "/webhooks/{id}", fullAccessOnly, s.deleteWebhook},
		{http.MethodPost, "/webhooks/{id}/secrets", fullAccessOnly, s.rotateWebhookSecret},
		{http.MethodGet, "/webhooks/{id}/deliveries", fullAccessOnly, s.listDeliveries},
		{http.MethodPost, "/webhooks/{id}/replay", fullAccessOnly, s.replayWebhook},

		// Notifications, the settings plane (docs/notifications.md): the app's settings with an
		// API key; a user's own with its auth token too, which the client SDK sends to the
		// preferences and mutes under /notifications/push/v1/.
		{http.MethodGet, "/notifications/v1/settings", fullAccessOnly, s.getNotificationSettings},
		{http.MethodPatch, "/notifications/v1/settings", fullAccessOnly, s.updateNotificationSettings},
		{http.MethodDelete, "/notifications/v1/settings", fullAccessOnly, s.resetNotificationSettings},
		{http.MethodGet, "/notifications/v1/preferences", clientAllowed, s.getNotificationPrefs},
		{http.MethodPatch, "/notifications/v1/preferences", clientAllowed, s.updateNotificationPrefs},
		{http.MethodDelete, "/notifications/v1/preferences", clientAllowed, s.resetNotificationPrefs},
		{http.MethodGet, "/notifications/push/v1/preferences", clientAllowed, s.getNotificationPrefs},
		{http.MethodPatch, "/notifications/push/v1/preferences", clientAllowed, s.updateNotificationPrefs},
		{http.MethodDelete, "/notifications/push/v1/preferences", clientAllowed, s.resetNotificationPrefs},
		{http.MethodGet, "/notifications/v1/preferences/mute", clientAllowed, s.listMutedConversations},
		{http.MethodPut, "/notifications/v1/preferences/mute", clientAllowed, s.muteConversations},
		{http.MethodDelete, "/notifications/v1/preferences/mute", clientAllowed, s.unmuteConversations},
		{http.MethodGet, "/notifications/push/v1/preferences/mute", clientAllowed, s.listMutedConversations},
		{http.MethodPut, "/notifications/push/v1/preferences/mute", clientAllowed, s.muteConversations},
		{http.MethodDelete, "/notifications/push/v1/preferences/mute", clientAllowed, s.unmuteConversations},
		{http.MethodGet, "/notifications/v1/preferences/timezone", clientAllowed, s.getNotificationTimezone},
		{http.MethodPatch, "/notifications/v1/preferences/timezone", clientAllowed, s.setNotificationTimezone},
		{http.MethodGet, "/notifications/v1/contact-details", clientAllowed, s.getContactDetails},
		{http.MethodPatch, "/notifications/v1/contact-details", clientAllowed, s.updateContactDetails},
		{http.MethodDelete, "/notifications/v1/contact-details", clientAllowed, s.deleteContactDetails},
		{http.MethodGet, "/notifications/v1/logs", fullAccessOnly, s.listNotificationLogs},
		// Notification providers: the app's (docs/notifications.md). Push tokens: a client
		// app's, with its user's auth token, as the SDK registers them; or an API key naming
		// the auth token.
		{http.MethodGet, "/notifications/push/v1/providers/fcm", fullAccessOnly, s.listFCMProviders},
		{http.MethodPost, "/notifications/push/v1/providers/fcm", fullAccessOnly, s.createFCMProvider},
		{http.MethodPut, "/notifications/push/v1/providers/fcm", fullAccessOnly, s.updateFCMProvider},
		{http.MethodDelete, "/notifications/push/v1/providers/fcm/{providerId}", fullAccessOnly, s.deletePushProvider(chat.ProviderFCM)},
		{http.MethodPut, "/notifications/push/v1/providers/fcm/default/{providerId}", fullAccessOnly, s.defaultPushProvider(chat.ProviderFCM)},
		{http.MethodGet, "/notifications/push/v1/providers/apns", fullAccessOnly, s.listAPNsProviders},
		{http.MethodPost, "/notifications/push/v1/providers/apns", fullAccessOnly, s.createAPNsProvider},
		{http.MethodPut, "/notifications/push/v1/providers/apns", fullAccessOnly, s.updateAPNsProvider},
		{http.MethodDelete, "/notifications/push/v1/providers/apns/{providerId}", fullAccessOnly, s.deletePushProvider(chat.ProviderAPNs)},
		{http.MethodPut, "/notifications/push/v1/providers/apns/default/{providerId}", fullAccessOnly, s.defaultPushProvider(chat.ProviderAPNs)},
		{http.MethodGet, "/notifications/push/v1/providers/custom", fullAccessOnly, s.getCustom(chat.ChannelPush)},
		{http.MethodPost, "/notifications/push/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelPush)},
		{http.MethodPut, "/notifications/push/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelPush)},
		{http.MethodDelete, "/notifications/push/v1/providers/custom", fullAccessOnly, s.deleteProvider(chat.ProviderCustomPush)},
		{http.MethodGet, "/notifications/sms/v1/providers/twilio", fullAccessOnly, s.getTwilio},
		{http.MethodPost, "/notifications/sms/v1/providers/twilio", fullAccessOnly, s.saveTwilio},
		{http.MethodPut, "/notifications/sms/v1/providers/twilio", fullAccessOnly, s.saveTwilio},
		{http.MethodDelete, "/notifications/sms/v1/providers/twilio", fullAccessOnly, s.deleteProvider(chat.ProviderTwilio)},
		{http.MethodGet, "/notifications/sms/v1/providers/custom", fullAccessOnly, s.getCustom(chat.ChannelSMS)},
		{http.MethodPost, "/notifications/sms/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelSMS)},
		{http.MethodPut, "/notifications/sms/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelSMS)},
		{http.MethodDelete, "/notifications/sms/v1/providers/custom", fullAccessOnly, s.deleteProvider(chat.ProviderCustomSMS)},
		{http.MethodGet, "/notifications/email/v1/providers/sendgrid", fullAccessOnly, s.getSendGrid},
		{http.MethodPost, "/notifications/email/v1/providers/sendgrid", fullAccessOnly, s.saveSendGrid},
		{http.MethodPut, "/notifications/email/v1/providers/sendgrid", fullAccessOnly, s.saveSendGrid},
		{http.MethodDelete, "/notifications/email/v1/providers/sendgrid", fullAccessOnly, s.deleteProvider(chat.ProviderSendGrid)},
		{http.MethodGet, "/notifications/email/v1/providers/custom", fullAccessOnly, s.getCustom(chat.ChannelEmail)},
		{http.MethodPost, "/notifications/email/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelEmail)},
		{http.MethodPut, "/notifications/email/v1/providers/custom", fullAccessOnly, s.saveCustom(chat.ChannelEmail)},
		{http.MethodDelete, "/notifications/email/v1/providers/custom", fullAccessOnly, s.deleteProvider(chat.ProviderCustomEmail)},
		{http.MethodPost, "/notifications/push/v1/tokens", clientAllowed, s.registerPushToken},
		{http.MethodGet, "/notifications/push/v1/tokens", clientAllowed, s.listPushTokens},
		{http.MethodDelete, "/notifications/push/v1/tokens/{pushToken}", clientAllowed, s.deletePushToken},
		{http.MethodDelete, "/notifications/push/v1/tokens", clientAllowed, s.unregisterPushTokens},

		{http.MethodGet, "/conversations", clientAllowed, s.listConversations},
		{http.MethodGet, "/conversations/{conversationId}", clientAllowed, s.getConversationByID},
		{http.MethodDelete, "/conversations/{conversationId}", clientAllowed, s.deleteConversationByID},
		{http.MethodGet, "/users/{uid}/conversation", clientAllowed, s.getConversation},
		{http.MethodPut, "/users/{uid}/conversation", clientAllowed, s.updateConversation},
		{http.MethodDelete, "/users/{uid}/conversation", clientAllowed, s.resetConversation},
		{http.MethodPost, "/users/{uid}/conversation/delivered", clientAllowed, s.markConversation(chat.MarkDelivered)},
		{http.MethodPost, "/users/{uid}/conversation/read", clientAllowed, s.markConversation(chat.MarkRead)},
		{http.MethodDelete, "/users/{uid}/conversation/read", clientAllowed, s.markConversation(chat.MarkUnread)},
		{http.MethodPost, "/users/{uid}/conversation/pin", clientAllowed, s.pinConversation},
		{http.MethodDelete, "/users/{uid}/conversation/pin", clientAllowed, s.unpinConversation},
		{http.MethodGet, "/groups/{guid}/conversation", clientAllowed, s.getConversation},
		{http.MethodPut, "/groups/{guid}/conversation", clientAllowed, s.updateConversation},
		{http.MethodDelete, "/groups/{guid}/conversation", clientAllowed, s.resetConversation},
		{http.MethodPost, "/groups/{guid}/conversation/delivered", clientAllowed, s.markConversation(chat.MarkDelivered)},
		{http.MethodPost, "/groups/{guid}/conversation/read", clientAllowed, s.markConversation(chat.MarkRead)},
		{http.MethodDelete, "/groups/{guid}/conversation/read", clientAllowed, s.markConversation(chat.MarkUnread)},
		{http.MethodPost, "/groups/{guid}/conversation/pin", clientAllowed, s.pinConversation},
		{http.MethodDelete, "/groups/{guid}/conversation/pin", clientAllowed, s.unpinConversation},
		{http.MethodGet, "/conversations/pinned", fullAccessOnly, s.listSystemPins},
		{http.MethodPut, "/conversations/pinned", fullAccessOnly, s.replaceSystemPins},

		{http.MethodPost, "/groups", clientAllowed, s.createGroup},
		{http.MethodGet, "/groups", clientAllowed, s.listGroups},
		{http.MethodGet, "/groups/{guid}", clientAllowed, s.getGroup},
		{http.MethodPut, "/groups/{guid}", clientAllowed, s.updateGroup},
		{http.MethodDelete, "/groups/{guid}", clientAllowed, s.deleteGroup},
		{http.MethodPatch, "/groups/{guid}/owner", clientAllowed, s.transferGroup},

		{http.MethodPost, "/groups/{guid}/members", clientAllowed, s.addMembers},
		{http.MethodGet, "/groups/{guid}/members", clientAllowed, s.listMembers},
		{http.MethodDelete, "/groups/{guid}/members", clientAllowed, s.leaveGroup},
		{http.MethodPut, "/groups/{guid}/members/{uid}", clientAllowed, s.changeScope},
		{http.MethodDelete, "/groups/{guid}/members/{uid}", clientAllowed, s.kickMember},
		{http.MethodPost, "/groups/{guid}/bannedusers/{uid}", clientAllowed, s.banUser},
		{http.MethodDelete, "/groups/{guid}/bannedusers/{uid}", clientAllowed, s.unbanUser},
		{http.MethodGet, "/groups/{guid}/bannedusers", clientAllowed, s.listBanned},

		{http.MethodPost, "/roles", fullAccessOnly, s.createRole},
		{http.MethodGet, "/roles", fullAccessOnly, s.listRoles},
		{http.MethodGet, "/roles/{role}", fullAccessOnly, s.getRole},
		{http.MethodPut, "/roles/{role}", fullAccessOnly, s.updateRole},
		{http.MethodDelete, "/roles/{role}", fullAccessOnly, s.deleteRole},
		{http.MethodPost, "/roles/{role}/restrictedfeatures", fullAccessOnly, s.restrictFeatures},
		{http.MethodGet, "/roles/{role}/restrictedfeatures", fullAccessOnly, s.listRestrictedFeatures},
		{http.MethodDelete, "/roles/{role}/restrictedfeatures", fullAccessOnly, s.allowFeatures},
		{http.MethodGet, "/roles/{role}/permissions", fullAccessOnly, s.listRolePermissions},
		{http.MethodPut, "/roles/{role}/permissions", fullAccessOnly, s.setRolePermissions},
		{http.MethodDelete, "/roles/{role}/permissions/{permission}", fullAccessOnly, s.unsetRolePermission},
		{http.MethodGet, "/groups/{guid}/scopes/{scope}/permissions", fullAccessOnly, s.listScopePermissions},
		{http.MethodPut, "/groups/{guid}/scopes/{scope}/permissions", fullAccessOnly, s.setScopePermissions},
		{http.MethodDelete, "/groups/{guid}/scopes/{scope}/permissions/{permission}", fullAccessOnly, s.unsetScopePermission},
		// AI agents: bots answered by an HTTP endpoint (docs/agents.md). PUT is natter's, PATCH
		// the hosted service's.
		{http.MethodPost, "/ai-agents/agents", fullAccessOnly, s.createAgent},
		{http.MethodGet, "/ai-agents/agents", fullAccessOnly, s.listAgents},
		{http.MethodGet, "/ai-agents/agents/{uid}", fullAccessOnly, s.getAgent},
		{http.MethodPut, "/ai-agents/agents/{uid}", fullAccessOnly, s.updateAgent},
		{http.MethodPatch, "/ai-agents/agents/{uid}", fullAccessOnly, s.updateAgent},
		{http.MethodDelete, "/ai-agents/agents/{uid}", fullAccessOnly, s.deleteAgent},
		{http.MethodPost, "/calls", clientAllowed, s.initiateCall},
		{http.MethodGet, "/calls", clientAllowed, s.listCalls},
		{http.MethodGet, "/calls/{sessionId}", clientAllowed, s.getCall},
		{http.MethodPut, "/calls/{sessionId}", clientAllowed, s.updateCall},
		{http.MethodPatch, "/calls/{sessionId}/type", clientAllowed, s.changeCallType},
		{http.MethodGet, "/calls/{sessionId}/transcriptions", clientAllowed, s.listTranscriptions},
		{http.MethodPost, "/calls/{sessionId}/transcriptions", fullAccessOnly, s.addTranscription},

		{http.MethodGet, "/stats", fullAccessOnly, s.usageMetrics},
		{http.MethodGet, "/stats/messages", fullAccessOnly, s.messageStats},

		// Data import (docs/import.md): a fullAccess key's, on a rate limit of its own.
		{http.MethodPost, "/data_import/users", fullAccessOnly, serveImport(s, "users", userImports)},
		{http.MethodPost, "/data_import/groups", fullAccessOnly, serveImport(s, "groups", groupImports)},
		{http.MethodPost, "/data_import/members", fullAccessOnly, serveImport(s, "members", memberImports)},
		{http.MethodPost, "/data_import/messages", fullAccessOnly, serveImport(s, "messages", messageImports)},
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
	"/users/{uid}/conversation/", "/groups/{guid}/conversation/",
	"/messages/{id}/thread/",
	"/messages/{id}/interacted", "/threads",
	// The hosted AI agents' other groups: tools, integrations, the Agent Builder.
	"/ai-agents/tools", "/ai-agents/tools/", "/ai-agents/integrations", "/ai-agents/integrations/", "/ai-agents/agent-builder/",
}
