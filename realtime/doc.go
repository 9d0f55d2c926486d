// Package realtime is natter's WebSocket side: the Hub that accepts the client SDK's sockets
// (socket.go, socketconn.go, socketqueue.go), speaks its frames (events.go; the shapes come
// from package wire) and turns the committed changes it hears on the service's feed into
// frames for this node's sockets (hubfeed.go), agents' typing among them, with presence and
// clients' typing from the bus in between (hub.go).
// httpapi upgrades requests at the root path to Hub.ServeHTTP; cmd/natter builds the Hub
// with NewHub and hands it to the server and to /metrics.
// It imports chat and wire, never httpapi.
package realtime
