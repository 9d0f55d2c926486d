package chat

// The Service's families: the methods of a part of the API that a caller reaches through an
// accessor, svc.Calls().Initiate(…) rather than svc.InitiateCall(…), so that `go doc
// chat.Service` lists the core (users, groups, members, messages, conversations, keys and
// tokens, the change feed) and names each family once. A family is the Service under another
// type: it holds nothing but the pointer, costs nothing to make, and its methods reach the
// service's state and helpers as the Service's own do. The files of a family are named for
// it (calls.go, callstate.go, …; the file list is doc.go's "Where things live").

// service is Service under a second name, so that a family embeds it without an exported
// field.
type service = Service

// Calls is the family of voice and video calls: their records, their signalling and state,
// the ring-out sweep and transcriptions (calls.go, callstate.go, callmessages.go,
// callexpiry.go, calltranscriptions.go).
type Calls struct{ *service }

// Calls is the calls family.
func (s *Service) Calls() Calls { return Calls{s} }

// Agents is the family of AI agents: their configuration, their jobs and what the agent
// workers do with them (agents.go, agentcalls.go).
type Agents struct{ *service }

// Agents is the AI agents family.
func (s *Service) Agents() Agents { return Agents{s} }

// Webhooks is the family of webhooks: their management, the outbox of events, delivery and
// replay (webhooks.go, webhookevents.go, webhookdelivery.go, webhookcrypto.go).
type Webhooks struct{ *service }

// Webhooks is the webhooks family.
func (s *Service) Webhooks() Webhooks { return Webhooks{s} }

// Notifications is the family of push, e-mail and SMS notifications: settings, preferences,
// mutes, providers, push tokens, contact details and the delivery pipeline
// (notifications.go, notif*.go, pushtokens.go, notifyrules.go).
type Notifications struct{ *service }

// Notifications is the notifications family.
func (s *Service) Notifications() Notifications { return Notifications{s} }

// Usage is the family of usage statistics: what each node counts, its rollups and the
// stats the API and the console show (stats.go, statsrollup.go).
type Usage struct{ *service }

// Usage is the usage statistics family.
func (s *Service) Usage() Usage { return Usage{s} }

// Import is the family of the data import API: users, groups, members and messages brought
// from elsewhere with their own ids and times (dataimport.go, importmembers.go,
// importmessages.go).
type Import struct{ *service }

// Import is the data import family.
func (s *Service) Import() Import { return Import{s} }

// Console is the family of the web console's sessions and the views only it has
// (console.go).
type Console struct{ *service }

// Console is the web console's family.
func (s *Service) Console() Console { return Console{s} }

// Roles is the family of access control an app configures: user roles, the permissions
// (RBAC keys) of each role and scope, and the features restricted by role or plan
// (roles.go, permissions.go, features.go). The checks every operation passes stay with the
// core (policy.go).
type Roles struct{ *service }

// Roles is the access control family.
func (s *Service) Roles() Roles { return Roles{s} }

// Moderation is the family of moderation: reasons, rules and keyword lists, the flagged and
// blocked queues and their reviews (moderation.go, moderationrules.go,
// moderationreview.go). Enforcement on send and edit (moderationengine.go) runs inside the
// core's writes.
type Moderation struct{ *service }

// Moderation is the moderation family.
func (s *Service) Moderation() Moderation { return Moderation{s} }
