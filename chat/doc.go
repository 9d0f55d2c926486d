// Package chat is natter's core: every rule of the hosted service's REST API v3 that natter
// serves, decided once, with no HTTP and no SQL driver in it. httpapi, the console, the
// socket hub (realtime), the workers (webhook, notify, agent) and the command line call its
// Service; sqlstore implements the storage interfaces it declares. Its values become the
// API's JSON in package wire, and the hosted data-import items decode in package dataimport.
//
// # How a request runs
//
// A caller builds a Principal (principal.go: the app, the key's scope or the auth token's
// user, the acting user) with Service.Authenticate (auth.go, keycache.go), then calls a
// Service method. The method validates its input (validate.go's fieldErrors), checks the
// acting user's permissions (policy.go, permissions.go, features.go, roles.go), and reads,
// decides and writes inside Store.Transact (store.go), through s.transact or s.write
// (changes.go), which announce the write's typed Changes once it committed: the socket hub,
// the workers and the caches subscribe to that feed (Service.Subscribe). A change that
// others must hear of writes its outbox event in the same transaction (webhookevents.go,
// notifdelivery.go, agents.go) and sets the Work bit its worker wakes for; errors carry a
// Code whose kind httpapi maps to a status (errors.go).
//
// # Where things live
//
// One file per aggregate holds its types, limits, storage interface and Service methods; a
// family's files hold the methods of its accessor (families.go: Calls, Agents, Webhooks,
// Notifications, Usage, Import, Console, Roles, Moderation):
//
//   - apps, keys, sign-in: apps.go, apikeys.go, authtokens.go, auth.go, keycache.go,
//     operator.go (the command line's principal), console.go (the web console's sessions)
//   - users and their relations: users.go, friends.go, blocks.go, roles.go
//   - groups: groups.go, members.go (members, bans, scopes)
//   - messages: messages.go (send, get, edit, delete), multisend.go (multipleReceivers),
//     history.go (message lists and their filters), threads.go (who follows a thread, the
//     threads list, subscriptions), reactions.go, pins.go (pins and saves), quotes.go
//     (quoted replies), interactive.go (interactive messages, interactions and goals),
//     conversations.go (conversation lists, markers, receipts), idempotency.go, utf8.go and
//     echo.go (stored JSON and quoting input in errors)
//   - files: files.go (upload forms, storing files a message carries, serving them, removing a
//     permanently deleted message's files; the bytes in internal/blobstore), filesweep.go
//     (files no message carried, swept by every node)
//   - permissions: policy.go (the one check every user operation passes), permissions.go
//     (RBAC keys), features.go (restricted features)
//   - moderation: moderation.go (reasons, the store), moderationrules.go (rules, keyword
//     lists), moderationengine.go (enforcement on send and edit), moderationreview.go
//     (flagging, the flagged and blocked queues)
//   - calls: calls.go (records and signalling), callstate.go (the state machine),
//     callmessages.go, callexpiry.go (the ring-out sweep), calltranscriptions.go
//   - webhooks: webhooks.go (management), webhookevents.go (the outbox), webhookdelivery.go
//     (delivery states, replay), webhookcrypto.go (secrets)
//   - notifications: notifications.go maps the notif*.go files (settings, preferences,
//     mutes, providers, push tokens, and the delivery pipeline: notifdelivery.go,
//     notifexpand.go, notifyrules.go, notiftext.go, notifsource.go)
//   - AI agents: agents.go (agents and their jobs), agentcalls.go (what the agent workers do)
//   - real time: realtime.go (events and presence as sockets see them; the hub that serves
//     them is package realtime)
//   - data import: dataimport.go, importmembers.go, importmessages.go
//   - usage: stats.go, statsrollup.go; rate limits: ratelimit.go
//   - the change feed: changes.go (Change, Subscribe, s.write and s.transact)
//   - shared: service.go (Config, New), store.go, errors.go, validate.go, paging.go,
//     principal.go (who calls, and its acting user: actingUser), addressee.go (whom a user
//     may address: a group it is in, a user neither blocked), families.go (the accessors)
//
// # Adding an endpoint
//
// A new write endpoint touches, in order: its Service method and rule in chat/<aggregate>.go
// (a table-driven unit test where it decides something); the storage method on that file's
// interface, implemented in sqlstore/<aggregate>.go for both engines (and a migration under
// sqlstore/migrations/{sqlite,postgres}/ if it needs a table); its handler and wire types in
// httpapi/<aggregate>.go (a response shape other packages render too — a socket frame, a
// webhook's data — in wire/<aggregate>.go) and its route in httpapi/routes.go; api/paths/<aggregate>.yaml
// (then go run ./api/bundle); client/<aggregate>.go; an end-to-end test on SQLite and
// PostgreSQL with a table of refusals (httpapi/<aggregate>_e2e_test.go); and its row in the
// README's feature table. Its Service method writes through s.write (one storage call) or
// s.transact with the Change it makes (a kind, the app, the ids listeners need; a new kind
// in changes.go if none fits), which the service announces after the commit: no handler or
// console page publishes or wakes anything. Its row in TestEveryWriteAnnounces
// (httpapi/feed_test.go) says which kinds; the test fails for a write route without one. If
// a worker must act on the change, its outbox event is written in the same transaction and
// the Change carries the worker's Work bit.
package chat
