package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/pgtest"
)

// The official client SDK, unmodified, from npm at test time (never vendored: its licence
// is CometChat's terms), run under Node by e2e/sdk/client.cjs.
const (
	sdkPackage = "@cometchat/chat-sdk-javascript@4.2.0"
	wsPackage  = "ws@8.23.0"
	// sdk3Package is the SDK many apps still run (issue 36): its methods that remain in
	// use are driven as SDK 4's are.
	sdk3Package = "@cometchat-pro/chat@3.0.13"
)

// npmInstall installs its packages into a temporary directory once per test binary (never
// vendored: their licence is CometChat's terms).
type npmInstall struct {
	prefix string // of the directory's name
	pkgs   []string
	once   sync.Once
	dir    string
	err    string
}

var (
	sdkInstall  = &npmInstall{prefix: "natter-sdk-", pkgs: []string{sdkPackage, wsPackage}}
	sdk3Install = &npmInstall{prefix: "natter-sdk3-", pkgs: []string{sdk3Package, wsPackage}}
)

// sdkDir installs SDK 4 and returns the directory holding its node_modules. Without node
// and npm the test is skipped, loudly; under CI=true it fails.
func sdkDir(t *testing.T) string { return sdkInstall.get(t) }

// sdk3Dir is sdkDir for SDK 3.
func sdk3Dir(t *testing.T) string { return sdk3Install.get(t) }

func (n *npmInstall) get(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found: CI must install Node.js and npm to run the client SDK test", tool)
			}
			t.Skipf("SKIPPED LOUDLY: %s not found; install Node.js and npm to run the official client SDK against natter", tool)
		}
	}
	n.once.Do(func() {
		dir, err := os.MkdirTemp("", n.prefix)
		if err != nil {
			n.err = err.Error()
			return
		}
		args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir}, n.pkgs...)
		if out, err := exec.Command("npm", args...).CombinedOutput(); err != nil {
			n.err = "npm install " + strings.Join(n.pkgs, " ") + ": " + err.Error() + "\n" + string(out)
			return
		}
		n.dir = dir
	})
	if n.err != "" {
		t.Fatal(n.err)
	}
	return n.dir
}

// sdkUser is one SDK session in a Node process of its own.
type sdkUser struct {
	t    *testing.T
	uid  string
	cmd  *exec.Cmd
	mu   sync.Mutex
	evs  []map[string]string
	errs strings.Builder
	done chan struct{}
}

func startSDKUser(t *testing.T, dir, caFile, host, app, key, uid, role string, extra ...string) *sdkUser {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("sdk", "client.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	return startSDKProcess(t, exec.Command("node", script, dir, role), caFile, host, app, key, uid, role, extra...)
}

// startSDKProcess runs cmd, a script of e2e/sdk, as the user uid (role names it in failure
// logs), with the settings every script reads from its environment.
func startSDKProcess(t *testing.T, cmd *exec.Cmd, caFile, host, app, key, uid, role string, extra ...string) *sdkUser {
	t.Helper()
	u := &sdkUser{t: t, uid: uid, done: make(chan struct{})}
	u.cmd = cmd
	u.cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+caFile, "NATTER_HOST="+host, "NATTER_APP="+app,
		"NATTER_KEY="+key, "NATTER_UID="+uid)
	u.cmd.Env = append(u.cmd.Env, extra...)
	u.cmd.Stderr = &u.errs
	stdout, err := u.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := u.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		u.cmd.Process.Kill()
		<-u.done
		if t.Failed() {
			errs := u.errs.String()
			if len(errs) > 2000 {
				errs = errs[len(errs)-2000:]
			}
			t.Logf("%s (%s) events: %v\nstderr tail: %s", uid, role, u.events(), errs)
		}
	})
	go func() {
		defer close(u.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			flat := map[string]string{}
			for k, v := range ev {
				switch v := v.(type) {
				case string:
					flat[k] = v
				default:
					b, _ := json.Marshal(v)
					flat[k] = string(b)
				}
			}
			u.mu.Lock()
			u.evs = append(u.evs, flat)
			u.mu.Unlock()
		}
		u.cmd.Wait()
	}()
	return u
}

func (u *sdkUser) events() []map[string]string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]map[string]string(nil), u.evs...)
}

// wait waits for an event of kind ev whose fields include want.
func (u *sdkUser) wait(ev string, want map[string]string, timeout time.Duration) map[string]string {
	u.t.Helper()
	deadline := time.Now().Add(timeout)
	exited := false
	for {
		for _, e := range u.events() {
			if e["ev"] == "error" {
				u.t.Fatalf("%s: SDK error: %v", u.uid, e)
			}
			if e["ev"] != ev {
				continue
			}
			ok := true
			for k, v := range want {
				ok = ok && e[k] == v
			}
			if ok {
				return e
			}
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("%s: no %q event with %v within %v", u.uid, ev, want, timeout)
		}
		if exited {
			u.t.Fatalf("%s: SDK process exited before a %q event with %v", u.uid, ev, want)
		}
		select {
		case <-u.done: // its last events are in: one more look
			exited = true
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tlsNode starts natter serving HTTPS with its own self-signed certificate, in a directory
// of its own (where the certificate is written).
func tlsNode(t *testing.T, name string, env []string, args ...string) (*natterProc, string) {
	t.Helper()
	dir := t.TempDir()
	p := newNatter(t, name, env, append(args, "--tls-self-signed")...)
	p.cmd.Dir = dir
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	if err := p.waitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	cert, err := os.ReadFile(filepath.Join(dir, "natter-dev-cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	return p, string(cert)
}

func (p *natterProc) host() string { return strings.TrimPrefix(p.base(), "http://") }

// runSDKScenario: bob and carol listen, alice sends a one-to-one message to bob, reacts to
// it, sends to the group of the three, reads the reaction list to its end and starts
// typing. Each user talks to the node given.
func runSDKScenario(t *testing.T, nodes map[string]*natterProc, certs []string, key string) {
	dir := sdkDir(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(strings.Join(certs, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	admin := client.New("https://"+nodes["alice"].host(), key, client.WithHTTPClient(hc))
	ctx := context.Background()
	for _, uid := range []string{"alice", "bob", "carol"} {
		if _, err := admin.CreateUser(ctx, client.CreateUserRequest{UID: uid, Name: strings.ToUpper(uid[:1]) + uid[1:]}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.CreateGroup(ctx, client.CreateGroupRequest{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice",
		Members: &client.MemberLists{Participants: []string{"bob", "carol"}}}); err != nil {
		t.Fatal(err)
	}
	const app = "e2e"
	bob := startSDKUser(t, dir, caFile, nodes["bob"].host(), app, key, "bob", "listen")
	carol := startSDKUser(t, dir, caFile, nodes["carol"].host(), app, key, "carol", "listen")
	bob.wait("connected", nil, 30*time.Second)
	carol.wait("connected", nil, 30*time.Second)
	alice := startSDKUser(t, dir, caFile, nodes["alice"].host(), app, key, "alice", "send", "NATTER_TO=bob", "NATTER_GROUP=crew")
	sent := alice.wait("sent", nil, 30*time.Second)
	got := bob.wait("text", map[string]string{"id": sent["id"]}, 15*time.Second)
	if got["text"] != "hello from the sdk" || got["sender"] != "alice" || got["receiver"] != "bob" {
		t.Errorf("bob received %v, want alice's text to bob", got)
	}
	r := bob.wait("reactionAdded", map[string]string{"messageId": sent["id"]}, 15*time.Second)
	if r["reaction"] != "👍" || r["uid"] != "alice" || r["id"] == "" {
		t.Errorf("bob's reaction event %v, want alice's 👍 with its id", r)
	}
	gsent := alice.wait("groupSent", nil, 15*time.Second)
	for _, u := range []*sdkUser{bob, carol} {
		g := u.wait("text", map[string]string{"id": gsent["id"]}, 15*time.Second)
		if g["receiverType"] != "group" || g["receiver"] != "crew" || g["text"] != "hello group" {
			t.Errorf("%s received %v, want alice's text to crew", u.uid, g)
		}
	}
	list := alice.wait("reactionList", nil, 15*time.Second)
	if list["total"] != "1" || list["pages"] != "2" {
		t.Errorf("reaction list fetchNext: %v, want one reaction then an empty page", list)
	}
	bob.wait("typing", map[string]string{"sender": "alice"}, 15*time.Second)
	bob.wait("online", map[string]string{"uid": "alice"}, 15*time.Second)
	for _, e := range carol.events() {
		if e["ev"] == "text" && e["id"] == sent["id"] {
			t.Errorf("carol received alice's one-to-one message to bob: %v", e)
		}
	}
}

func TestClientSDK(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	sdkDir(t) // skip before starting anything
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	dbPath := filepath.Join(t.TempDir(), "natter.db")
	node, cert := tlsNode(t, "node", env, "serve", "--addr", "127.0.0.1:0", "--database", "sqlite:"+dbPath, "--access-log=false")
	runSDKScenario(t, map[string]*natterProc{"alice": node, "bob": node, "carol": node}, []string{cert}, key)
}

// TestClientSDKScaleOut runs the scenario with the users on two nodes of one PostgreSQL:
// alice and carol on node A, bob on node B.
func TestClientSDKScaleOut(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	sdkDir(t)
	dbURL := pgtest.URL(t)
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--database", dbURL, "--access-log=false"}
	a, certA := tlsNode(t, "node A", env, args...)
	b, certB := tlsNode(t, "node B", env, args...)
	runSDKScenario(t, map[string]*natterProc{"alice": a, "carol": a, "bob": b}, []string{certA, certB}, key)
}

// TestClientSDKCalls: alice calls bob with the SDK's initiateCall; bob's SDK gets the
// incoming call on its socket and answers with acceptCall; alice's SDK hears it accepted and
// hangs up with endCall; bob's SDK hears it ended; the record shows both in it, ended
// (docs/calls.md).
func TestClientSDKCalls(t *testing.T) {
	// Its own processes, servers and ports: most of its time is waiting, which overlaps.
	t.Parallel()
	dir := sdkDir(t)
	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	node, cert := tlsNode(t, "node", env, "serve", "--addr", "127.0.0.1:0", "--database", "sqlite:"+filepath.Join(t.TempDir(), "natter.db"), "--access-log=false")
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(cert), 0o644); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	admin := client.New("https://"+node.host(), key, client.WithHTTPClient(hc))
	ctx := context.Background()
	for _, uid := range []string{"alice", "bob"} {
		if _, err := admin.CreateUser(ctx, client.CreateUserRequest{UID: uid, Name: uid}); err != nil {
			t.Fatal(err)
		}
	}
	bob := startSDKUser(t, dir, caFile, node.host(), "e2e", key, "bob", "listen")
	bob.wait("connected", nil, 30*time.Second)
	alice := startSDKUser(t, dir, caFile, node.host(), "e2e", key, "alice", "call", "NATTER_TO=bob")
	alice.wait("connected", nil, 30*time.Second)
	init := alice.wait("initiated", map[string]string{"status": "initiated"}, 30*time.Second)
	in := bob.wait("incomingCall", map[string]string{"sessionId": init["sessionId"]}, 15*time.Second)
	if in["initiator"] != "alice" || in["type"] != "audio" {
		t.Errorf("bob's incoming call: %v", in)
	}
	bob.wait("accepted", map[string]string{"sessionId": init["sessionId"], "status": "ongoing"}, 15*time.Second)
	alice.wait("outgoingAccepted", map[string]string{"sessionId": init["sessionId"]}, 15*time.Second)
	alice.wait("ended", map[string]string{"sessionId": init["sessionId"], "status": "ended"}, 15*time.Second)
	bob.wait("callEnded", map[string]string{"sessionId": init["sessionId"]}, 15*time.Second)
	c, err := admin.GetCall(ctx, init["sessionId"])
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "ended" || c.TotalParticipants != 2 || c.Initiator != "alice" || c.Receiver != "bob" || c.EndedAt == 0 {
		t.Errorf("record: %+v", c)
	}
}
