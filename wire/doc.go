// Package wire renders chat's values as the hosted service's REST API v3 JSON: messages
// (hand-encoded, on the hot path: encode.go), users, groups, reactions, call data, the stored
// JSON objects they carry (stored.go), the error envelope with its kind-to-status table
// (errors.go), and webhook event data (webhookdata.go). It imports chat only and writes no
// HTTP response: httpapi's handlers, the socket hub (realtime), the webhook and notification
// workers use it, so an event, a socket frame and a response say a value in the same bytes.
// Request bodies and the shapes of a single endpoint stay with its handler in httpapi.
package wire
