// Package e2e holds end-to-end tests that run the real natter binary as subprocesses on
// throwaway PostgreSQL servers: several stateless nodes on one database (scaleout_test.go),
// PostgreSQL stopped and started under load (faults_test.go), a node killed between a
// write and its answer under an Idempotency-Key (idempotency_test.go), and webhook
// deliveries across nodes, a kill -9, an outage and a failing endpoint (webhook_test.go).
// CometChat's own clients, installed from npm at test time, run against it too: the
// JavaScript SDK under Node (sdk_test.go; every request builder to its last page in
// sdkbuilders_test.go) and the React UI Kit in headless Chromium
// (uikit_test.go, with its page in uikit/).
// It has no code of its own; the tests build ./cmd/natter once per test binary.
//
//	go test -count=1 -v ./e2e
package e2e
