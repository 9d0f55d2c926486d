package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/internal/chromium"
)

// CometChat's official React UI Kit, unmodified, from npm at test time (never vendored: its
// licence is CometChat's terms), with the SDK it takes as a peer, React 18 and esbuild to
// bundle e2e/uikit/index.jsx against them.
var uikitPackages = []string{
	"@cometchat/chat-uikit-react@7.2.1",
	"@cometchat/chat-sdk-javascript@4.2.0",
	"react@18.3.1",
	"react-dom@18.3.1",
	"esbuild@0.25.0",
}

// uikitInstall holds the bundled page, made once per test binary.
var uikitInstall struct {
	once sync.Once
	dir  string // holds index.html, app.js, app.css and the fonts
	err  string
	took time.Duration
}

// uikitPage installs the UI Kit from npm, bundles the page and returns the directory to serve.
// Without node and npm the test is skipped, loudly; under CI=true it fails.
func uikitPage(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found: CI must install Node.js and npm to run CometChat's React UI Kit", tool)
			}
			t.Skipf("SKIPPED LOUDLY: %s not found; install Node.js and npm to run CometChat's React UI Kit against natter", tool)
		}
	}
	uikitInstall.once.Do(func() {
		t0 := time.Now()
		defer func() { uikitInstall.took = time.Since(t0) }()
		src, err := filepath.Abs("uikit")
		if err != nil {
			uikitInstall.err = err.Error()
			return
		}
		// Named as the natter binary's directory is, so that a later run sweeps it away
		// (pgtest.Main exits before any cleanup of ours could run).
		dir, err := os.MkdirTemp("", binPrefix+strconv.Itoa(os.Getpid())+"-uikit-")
		if err != nil {
			uikitInstall.err = err.Error()
			return
		}
		args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir}, uikitPackages...)
		if out, err := exec.Command("npm", args...).CombinedOutput(); err != nil {
			uikitInstall.err = fmt.Sprintf("npm install %s: %v\n%s", strings.Join(uikitPackages, " "), err, out)
			return
		}
		// The entry point sits beside node_modules, where esbuild resolves packages from.
		www := filepath.Join(dir, "www")
		for _, f := range []struct{ from, to string }{{"index.jsx", dir}, {"index.html", www}} {
			b, err := os.ReadFile(filepath.Join(src, f.from))
			if err == nil {
				err = os.MkdirAll(f.to, 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(f.to, f.from), b, 0o644)
			}
			if err != nil {
				uikitInstall.err = err.Error()
				return
			}
		}
		cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "esbuild"), "index.jsx", "--bundle", "--jsx=automatic",
			"--define:process.env.NODE_ENV=\"production\"", "--outfile=www/app.js", "--loader:.woff2=file", "--loader:.svg=file",
			"--loader:.png=file", "--log-level=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			uikitInstall.err = fmt.Sprintf("esbuild: %v\n%s", err, out)
			return
		}
		uikitInstall.dir = www
	})
	if uikitInstall.err != "" {
		t.Fatal(uikitInstall.err)
	}
	t.Logf("UI Kit installed and bundled in %v", uikitInstall.took.Round(time.Millisecond))
	return uikitInstall.dir
}

// shots keeps screenshots and writes them out if the test fails (or always, with
// NATTER_TEST_SCREENSHOTS=always): to $NATTER_TEST_ARTEFACTS, else e2e/testdata-out.
type shots struct {
	mu    sync.Mutex
	names []string
	pngs  [][]byte
}

func newShots(t *testing.T) *shots {
	s := &shots{}
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("NATTER_TEST_SCREENSHOTS") != "always" {
			return
		}
		dir := os.Getenv("NATTER_TEST_ARTEFACTS")
		if dir == "" {
			dir = "testdata-out"
		}
		dir = filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
		os.RemoveAll(dir) // an earlier run's, which would mix with these
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Logf("screenshots: %v", err)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, png := range s.pngs {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-%s.png", i, s.names[i])), png, 0o644); err != nil {
				t.Logf("screenshots: %v", err)
			}
		}
		abs, _ := filepath.Abs(dir)
		t.Logf("screenshots of each step: %s", abs)
	})
	return s
}

func (s *shots) snap(name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		b, err := chromedp.FullScreenshot(100)(ctx, t)
		if err != nil {
			return chromedp.Void{}, err
		}
		s.mu.Lock()
		s.names, s.pngs = append(s.names, name), append(s.pngs, b)
		s.mu.Unlock()
		return chromedp.Void{}, nil
	}
}

// natterTraffic records every request the page makes to natter, from the browser's own
// network events: each must be answered below 400 (a request the browser refused, such as
// one failing CORS, has no answer and counts as refused too).
type natterTraffic struct {
	prefixes []string // https://host:port/ and wss://host:port

	mu       sync.Mutex
	requests map[network.RequestID]string // method and URL
	answered int
	refused  []string
	sockets  int
	frames   []string // what natter's sockets sent the page
	console  []string // the page's errors and exceptions, for the log of a failed run
	// choosers has the file input of each file chooser a page opened, while interception is
	// on (cdpage.SetInterceptFileChooserDialog): the Kit's composer clicks an <input
	// type=file> it never puts in the document, so only the chooser names it.
	choosers chan cdp.BackendNodeID
}

func (n *natterTraffic) ours(u string) bool {
	for _, p := range n.prefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

func (n *natterTraffic) listen(ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if n.ours(ev.Request.URL) {
			n.requests[ev.RequestID] = ev.Request.Method + " " + ev.Request.URL
		}
	case *network.EventResponseReceived:
		if req, ok := n.requests[ev.RequestID]; ok {
			n.answered++
			if ev.Response.Status >= 400 {
				n.refused = append(n.refused, fmt.Sprintf("%s: %d", req, ev.Response.Status))
			}
		}
	case *network.EventLoadingFailed:
		if req, ok := n.requests[ev.RequestID]; ok && !ev.Canceled {
			n.refused = append(n.refused, fmt.Sprintf("%s: failed: %s %s %v", req, ev.ErrorText, ev.BlockedReason, ev.CorsErrorStatus))
		}
	case *network.EventWebSocketCreated:
		if n.ours(ev.URL) {
			n.requests[ev.RequestID] = "WebSocket " + ev.URL
		}
	case *network.EventWebSocketHandshakeResponseReceived:
		if req, ok := n.requests[ev.RequestID]; ok {
			n.sockets++
			if ev.Response.Status >= 400 {
				n.refused = append(n.refused, fmt.Sprintf("%s: %d", req, ev.Response.Status))
			}
		}
	case *network.EventWebSocketFrameReceived:
		if _, ok := n.requests[ev.RequestID]; ok {
			n.frames = append(n.frames, string(ev.Response.PayloadData))
		}
	case *network.EventWebSocketFrameError:
		if req, ok := n.requests[ev.RequestID]; ok {
			n.refused = append(n.refused, fmt.Sprintf("%s: frame error %s", req, ev.ErrorMessage))
		}
	case *cdpage.EventFileChooserOpened:
		select {
		case n.choosers <- ev.BackendNodeID:
		default:
		}
	case *runtime.EventExceptionThrown:
		n.console = append(n.console, fmt.Sprintf("exception: %s %v", ev.ExceptionDetails.Text, ev.ExceptionDetails.Exception))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var parts []string
			for _, a := range ev.Args {
				if a.Value != nil {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			n.console = append(n.console, string(ev.Type)+": "+strings.Join(parts, " "))
		}
	}
}

// asked says whether the page sent natter a request whose method and URL hold all of parts.
func (n *natterTraffic) asked(parts ...string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range n.requests {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(r, p)
		}
		if all {
			return true
		}
	}
	return false
}

// sent says whether one of natter's socket frames to the page held all of parts.
func (n *natterTraffic) sent(parts ...string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, f := range n.frames {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(f, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestUIKit runs CometChat's official React UI Kit in headless Chromium against natter over
// TLS, served from another origin (natter answers it through --cors-origins): alice logs in
// with an auth token; the conversation list shows her one-to-one with bob and the group crew;
// each opens with its history; she sends from the composer (natter has it); a message bob
// sends over REST and a reaction he adds over REST arrive live; a message's information
// shows bob's read receipt. Then the everyday actions, a subtest each: the unread badge,
// joining a public group from the groups list, a thread reply, a reaction through the
// emoji picker, adding and banning a member, blocking and unblocking, search, attaching an
// image and a PDF in the composer (which bob's page, in a browser context of its own, shows
// from natter's URLs: the image loaded, the PDF to download); each checked
// over REST and leaving no SDK promise pending or rejected. Every request the page made to
// natter was answered below 400.
func TestUIKit(t *testing.T) {
	exe := chromium.Path(t, "CometChat's React UI Kit against natter")
	page := uikitPage(t)
	started := time.Now()

	// The page's own origin, over TLS as natter is (a secure page may not call an insecure
	// host, and the SDK speaks only https and wss).
	web := httptest.NewTLSServer(http.FileServer(http.Dir(page)))
	defer web.Close()

	key := randomKey()
	env := []string{"NATTER_API_KEY=" + key, "NATTER_APP_ID=e2e"}
	node, _ := tlsNode(t, "node", env, "serve", "--addr", "127.0.0.1:0", "--database", "sqlite:"+filepath.Join(t.TempDir(), "natter.db"),
		"--access-log=false", "--cors-origins", web.URL)
	host := node.host()

	// The data, over REST: three users, a group of them, history in both conversations, and
	// bob's read marker past alice's messages.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	admin := client.New("https://"+host, key, client.WithHTTPClient(hc))
	ctx := context.Background()
	for _, u := range []client.CreateUserRequest{{UID: "alice", Name: "Alice"}, {UID: "bob", Name: "Bob"}, {UID: "carol", Name: "Carol"},
		{UID: "dave", Name: "Dave"}, {UID: "erin", Name: "Erin"}} {
		if _, err := admin.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.CreateGroup(ctx, client.CreateGroupRequest{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice",
		Members: &client.MemberLists{Participants: []string{"bob", "carol"}}}); err != nil {
		t.Fatal(err)
	}
	// A public group of carol's that alice has not joined.
	if _, err := admin.CreateGroup(ctx, client.CreateGroupRequest{GUID: "lounge", Name: "Lounge", Type: "public", Owner: "carol",
		Members: &client.MemberLists{Participants: []string{"bob"}}}); err != nil {
		t.Fatal(err)
	}
	send := func(from, to, receiverType, text string) *client.Message {
		t.Helper()
		m, err := admin.OnBehalfOf(from).SendMessage(ctx, client.SendMessageRequest{Receiver: to, ReceiverType: receiverType,
			Category: "message", Type: "text", Data: map[string]any{"text": text}})
		if err != nil {
			t.Fatalf("%s sends %q: %v", from, text, err)
		}
		return m
	}
	send("bob", "alice", "user", "Morning, Alice")
	toBob := send("alice", "bob", "user", "Hi Bob, from the history")
	fromCarol := send("carol", "crew", "group", "Carol says hello to the crew")
	toCrew := send("alice", "crew", "group", "Alice briefs the crew")
	if _, err := admin.OnBehalfOf("bob").MarkUserConversation(ctx, "alice", client.MarkRead, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.OnBehalfOf("bob").MarkGroupConversation(ctx, "crew", client.MarkRead, ""); err != nil {
		t.Fatal(err)
	}
	send("carol", "lounge", "group", "Welcome to the lounge")
	// Two messages alice has not read: her conversation with erin shows a badge of 2.
	send("erin", "alice", "user", "Erin's first")
	send("erin", "alice", "user", "Erin's second")
	token, err := admin.CreateAuthToken(ctx, "alice", client.CreateAuthTokenRequest{})
	if err != nil {
		t.Fatal(err)
	}

	traffic := &natterTraffic{prefixes: []string{"https://" + host + "/", "wss://" + host}, requests: map[network.RequestID]string{},
		choosers: make(chan cdp.BackendNodeID, 4)}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1600, 900), chromedp.Flag("ignore-certificate-errors", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf), chromedp.WithListener(traffic.listen))
	defer cancel()
	if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(bctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	// Checked at the end, and after a failed step too: a refusal is the likeliest cause.
	t.Cleanup(func() {
		traffic.mu.Lock()
		defer traffic.mu.Unlock()
		for _, r := range traffic.refused {
			t.Errorf("natter refused the page: %s", r)
		}
		if traffic.answered == 0 || traffic.sockets == 0 {
			t.Errorf("saw %d answers and %d sockets from natter: the page did not reach it", traffic.answered, traffic.sockets)
		}
		t.Logf("%d requests to natter answered, %d socket(s)", traffic.answered, traffic.sockets)
		if t.Failed() {
			t.Logf("the page's console errors and warnings:\n%s", strings.Join(traffic.console, "\n"))
		}
	})
	// The whole run is bounded by a timeout on a child of the context that started the
	// browser (a timeout on that one would stop the browser); each step by 20 s, the first
	// by a minute.
	bctx, cancel = context.WithTimeout(bctx, 7*time.Minute)
	defer cancel()
	shots := newShots(t)
	var stepsIn func(t *testing.T, bctx context.Context) runStep
	// steps makes the step runner of a test: a step that fails screenshots the page and
	// fails t.
	steps := func(t *testing.T) runStep { return stepsIn(t, bctx) }
	stepsIn = func(t *testing.T, bctx context.Context) runStep {
		return func(step string, actions ...chromedp.Action[chromedp.Void]) {
			t.Helper()
			// The first step loads and parses the Kit's bundle, several MB: on two cores
			// busy with other tests it once took more than 20 s (a blank page, no request
			// made), so it gets a minute.
			d := 20 * time.Second
			if strings.HasPrefix(step, "log in") {
				d = time.Minute
			}
			sctx, cancel := context.WithTimeout(bctx, d)
			defer cancel()
			if err := chromedp.Do(sctx, actions...); err != nil {
				_ = chromedp.Do(bctx, shots.snap("failed-"+strings.ReplaceAll(step, " ", "-")))
				t.Fatalf("%s: %v", step, err)
			}
		}
	}
	run := steps(t)
	x := func(xpath string) chromedp.Search { return chromedp.Search(xpath) }

	q := url.Values{"host": {host}, "app": {"e2e"}, "token": {token.AuthToken}}
	var status string
	run("log in", chromedp.Navigate(web.URL+"/index.html?"+q.Encode()),
		chromedp.WaitVisible(x(`//p[@id='status'][starts-with(., 'ready') or starts-with(., 'error')]`)),
		into(chromedp.Text(chromedp.CSS("#status")), &status), shots.snap("logged-in"))
	if status != "ready alice" {
		t.Fatalf("the page says %q, want ready alice", status)
	}
	title := func(name string) chromedp.Search {
		return x(fmt.Sprintf(`//*[contains(@class,'cometchat-conversations__item-title')][normalize-space()=%q]`, name))
	}
	run("conversations", chromedp.WaitVisible(title("Bob")), chromedp.WaitVisible(title("Crew")), shots.snap("conversations"))

	// One-to-one: the history shows; a message sent from the composer reaches natter; bob's
	// message and reaction, made over REST, arrive live; the information of alice's message
	// shows bob's read receipt.
	run("open bob", chromedp.Click(title("Bob")), chromedp.WaitVisible(bubble("user_bob", "Morning, Alice")),
		chromedp.WaitVisible(bubble("user_bob", "Hi Bob, from the history")), shots.snap("bob"))
	compose(t, run, "user_bob", "Sent from the UI Kit")
	waitREST(t, "bob's conversation with alice", func() ([]client.Message, error) {
		l, err := admin.OnBehalfOf("bob").ListUserMessages(ctx, "alice", client.MessageListParams{Limit: 50})
		if err != nil {
			return nil, err
		}
		return l.Data, nil
	}, "alice", "Sent from the UI Kit")
	send("bob", "alice", "user", "Live from REST")
	run("live message", chromedp.WaitVisible(bubble("user_bob", "Live from REST")), shots.snap("live-message"))
	if !traffic.sent(`"type":"message"`, "Live from REST") {
		t.Errorf("the page shows bob's message, but natter's socket did not send it: not live")
	}
	if _, err := admin.OnBehalfOf("bob").AddReaction(ctx, toBob.ID, "👍"); err != nil {
		t.Fatal(err)
	}
	run("live reaction", chromedp.WaitVisible(x(inMessage(toBob.ID)+`//*[contains(@class,'cometchat-reactions')][contains(., '👍')]`)),
		shots.snap("live-reaction"))
	if !traffic.sent(`"type":"reaction"`, `"messageId":"`+toBob.ID+`"`) {
		t.Errorf("the page shows bob's reaction, but natter's socket did not send it: not live")
	}
	var readTime string
	openInfo(run, toBob.ID)
	run("one-to-one receipts", chromedp.WaitVisible(x(infoSection("Read")+`//*[contains(@class,'cometchat-message-information__section-time')]`)),
		into(chromedp.Text(chromedp.Search(infoSection("Read"))), &readTime), shots.snap("bob-info"),
		chromedp.Click(chromedp.CSS(`.cometchat-message-information__header-close-button`)),
		chromedp.WaitNotPresent(chromedp.CSS(`.cometchat-message-information`)))
	if rest, ok := strings.CutPrefix(strings.TrimSpace(readTime), "Read"); !ok || strings.TrimSpace(rest) == "" {
		t.Errorf("the information of alice's message to bob shows %q, want the time bob read it", readTime)
	}

	// The group: the history shows, and a message sent from the composer reaches natter.
	run("open crew", chromedp.Click(title("Crew")), chromedp.WaitVisible(bubble("group_crew", "Carol says hello to the crew")),
		chromedp.WaitVisible(bubble("group_crew", "Alice briefs the crew")), shots.snap("crew"))
	compose(t, run, "group_crew", "To the crew from the UI Kit")
	waitREST(t, "the crew's messages", func() ([]client.Message, error) {
		l, err := admin.OnBehalfOf("carol").ListGroupMessages(ctx, "crew", client.MessageListParams{Limit: 50})
		if err != nil {
			return nil, err
		}
		return l.Data, nil
	}, "alice", "To the crew from the UI Kit")
	t.Run("group receipts", func(t *testing.T) {
		// Bob read the crew's messages (marked over REST before the page loaded); carol
		// has not. The panel lists each other member's receipts, by name.
		run := steps(t)
		var receipts string
		openInfo(run, toCrew.ID)
		run("group receipts", chromedp.WaitVisible(x(`//*[contains(@class,'cometchat-message-information__user-item')]`+
			`[.//*[contains(@class,'user-item-name')][normalize-space()='Bob']]//*[contains(@class,'receipt-label')][normalize-space()='Read']`)),
			into(chromedp.Text(chromedp.CSS(`.cometchat-message-information`)), &receipts), shots.snap("crew-info"),
			chromedp.Click(chromedp.CSS(`.cometchat-message-information__header-close-button`)),
			chromedp.WaitNotPresent(chromedp.CSS(`.cometchat-message-information`)))
		if !strings.Contains(receipts, "Bob") {
			t.Errorf("the information of alice's message to the crew: %q, want bob's read receipt", receipts)
		}
	})

	// Everyday actions, each driven through the Kit's UI (or, where the Kit has none, the
	// page's, made as its sample app makes it), each checked on natter's side over REST, and
	// each leaving no request natter refused and no SDK promise pending or rejected.
	state := pageState{traffic: traffic}
	alice := admin.OnBehalfOf("alice")
	tab := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Click(chromedp.CSS("#tab-" + name))
	}
	// f calls settled after each part of its action, naming the SDK calls the part must
	// have completed.
	action := func(name string, f func(t *testing.T, run runStep, settled func(calls ...string))) {
		t.Run(name, func(t *testing.T) {
			run := steps(t)
			// Each action starts from the conversation list, whatever the last one left.
			run("chats tab", tab("chats"), chromedp.WaitVisible(title("Crew")))
			m := state.mark(t, run)
			defer func() {
				// A step that timed out: the SDK's pending calls are the likeliest cause.
				if t.Failed() {
					sctx, cancel := context.WithTimeout(bctx, 5*time.Second)
					defer cancel()
					if c, err := chromedp.Run(sctx, chromedp.Evaluate[sdkCalls](`window.__sdkCalls`)); err == nil && c.Pending > 0 {
						t.Logf("SDK calls pending: %s", strings.Join(slices.Sorted(maps.Values(c.Open)), ", "))
					}
				}
			}()
			settled := func(calls ...string) {
				t.Helper()
				state.check(t, run, m, calls...)
				m = state.mark(t, run)
			}
			f(t, run, settled)
			run("after "+name, shots.snap(strings.ReplaceAll(name, " ", "-")))
		})
	}
	convItem := func(name string) string {
		return fmt.Sprintf(`//*[%s][.//*[%s][normalize-space()=%q]]`, cls("cometchat-conversations__item"), cls("cometchat-conversations__item-title"), name)
	}
	badge := func(name string) string {
		return convItem(name) + `//*[` + cls("cometchat-conversations__item-unread-badge") + `]`
	}

	action("unread badge", func(t *testing.T, run runStep, settled func(...string)) {
		// Erin's two messages, sent before the page loaded, show as a badge of 2; opening
		// the conversation clears it, on the page and on natter; a message erin sends while
		// alice is elsewhere shows a badge of 1, live.
		run("badge of 2", chromedp.WaitVisible(x(badge("Erin")+`[normalize-space()='2']`)), shots.snap("erin-unread"))
		run("open erin", chromedp.Click(title("Erin")), chromedp.WaitVisible(bubble("user_erin", "Erin's second")),
			chromedp.WaitNotPresent(x(badge("Erin"))))
		eventually(t, "alice's unread count with erin", func() (bool, string, error) {
			n, err := alice.UnreadCount(ctx, client.ReceiverUser, "erin", client.MessageListParams{})
			return n == 0, fmt.Sprintf("%d unread", n), err
		})
		run("open crew", chromedp.Click(title("Crew")), chromedp.WaitVisible(bubble("group_crew", "Alice briefs the crew")))
		// The pointer leaves the list: over an item, the Kit shows a delete button in place of
		// its badge, and erin's conversation moves to the top, where crew's was.
		send("erin", "alice", "user", "Erin's third")
		run("live badge of 1", chromedp.MouseEvent(chromedp.MouseMoved, 1000, 20),
			chromedp.WaitVisible(x(badge("Erin")+`[normalize-space()='1']`)))
		settled("CometChat.markConversationAsRead", "CometChatHelper.getConversationFromMessage")
	})

	action("join a public group", func(t *testing.T, run runStep, settled func(...string)) {
		run("groups tab", tab("groups"), chromedp.WaitVisible(x(groupItem("Lounge"))), shots.snap("groups"))
		run("open lounge", chromedp.Click(x(groupItem("Lounge"))),
			chromedp.WaitVisible(x(`//*[@id='chat'][@data-conversation='group_lounge'][@data-joined='false']//*[@id='join']//button[normalize-space()='Join']`)))
		run("join", chromedp.Click(x(`//*[@id='join']//button[normalize-space()='Join']`)),
			chromedp.WaitVisible(x(`//*[@id='chat'][@data-conversation='group_lounge'][@data-joined='true']`)),
			chromedp.WaitVisible(bubble("group_lounge", "Welcome to the lounge")),
			chromedp.WaitVisible(chromedp.CSS(`#chat .cometchat-message-composer__input`)))
		eventually(t, "the lounge's members", func() (bool, string, error) {
			l, err := admin.ListMembers(ctx, "lounge", client.ListMembersParams{PerPage: 100})
			if err != nil {
				return false, "", err
			}
			var uids []string
			for _, m := range l.Members {
				uids = append(uids, m.UID+" "+m.Scope)
			}
			return slices.Contains(uids, "alice participant"), strings.Join(uids, ", "), nil
		})
		settled("CometChat.joinGroup")
	})

	action("reply in a thread", func(t *testing.T, run runStep, settled func(...string)) {
		run("open crew", chromedp.Click(title("Crew")), chromedp.WaitVisible(bubble("group_crew", "Alice briefs the crew")))
		thread := fmt.Sprintf(`//*[@id='thread'][@data-parent=%q]`, toCrew.ID)
		messageOption(run, toCrew.ID, "Reply in thread", chromedp.WaitVisible(x(thread)))
		input := chromedp.Search(thread + `//*[` + cls("cometchat-message-composer__input") + `]`)
		const reply = "A reply in the thread"
		run("reply", chromedp.WaitVisible(input), chromedp.Click(input), chromedp.SendKeys(input, reply),
			chromedp.Click(x(thread+`//*[`+cls("cometchat-message-composer__send-button")+`][not(@disabled)]`)),
			chromedp.WaitVisible(x(thread+`//*[@data-message-id]//*[`+cls("cometchat-text-bubble__text")+fmt.Sprintf(`][normalize-space()=%q]`, reply))),
			shots.snap("thread"))
		waitREST(t, "the thread of alice's message to the crew", func() ([]client.Message, error) {
			l, err := admin.OnBehalfOf("carol").ListThread(ctx, toCrew.ID, client.MessageListParams{Limit: 50})
			if err != nil {
				return nil, err
			}
			return l.Data, nil
		}, "alice", reply)
		settled("CometChat.sendMessage")
		run("close the thread", chromedp.Click(chromedp.CSS(`#thread .cometchat-thread-header__close-button`)),
			chromedp.WaitNotPresent(chromedp.CSS(`#thread`)))
	})

	action("react through the picker", func(t *testing.T, run runStep, settled func(...string)) {
		// The picker, like the menu, closes when the list scrolls: the pick is part of the
		// attempt that messageOption repeats.
		first := `(//*[` + cls("cometchat-emoji-keyboard__emoji-item") + `])[1]`
		var emoji string
		messageOption(run, fromCarol.ID, "React", chromedp.Steps(chromedp.WaitVisible(x(first)), into(chromedp.Text(x(first)), &emoji),
			shots.snap("picker"), pointer(chromedp.MousePressed, first), pointer(chromedp.MouseReleased, first),
			chromedp.WaitNotPresent(chromedp.CSS(`.cometchat-emoji-keyboard__emoji-item`))))
		emoji = strings.TrimSpace(emoji)
		if emoji == "" {
			t.Fatal("the picker's first emoji has no text")
		}
		run("reaction shows", chromedp.WaitVisible(x(inMessage(fromCarol.ID)+`//*[contains(@class,'cometchat-reactions')][contains(., `+xq(emoji)+`)]`)))
		eventually(t, "the reactions to carol's message", func() (bool, string, error) {
			l, err := admin.ListReactions(ctx, fromCarol.ID, client.ListReactionsParams{Limit: 20})
			if err != nil {
				return false, "", err
			}
			var got []string
			for _, r := range l.Reactions {
				got = append(got, r.UID+" "+r.Reaction)
			}
			return slices.Contains(got, "alice "+emoji), strings.Join(got, ", "), nil
		})
		settled("CometChat.addReaction")
	})

	action("add and ban a member", func(t *testing.T, run runStep, settled func(...string)) {
		run("crew details", chromedp.Click(x(`//*[@id='chat']//*[`+cls("cometchat-message-header")+`]//*[normalize-space()='Crew']`)),
			chromedp.WaitVisible(chromedp.CSS(`#details[data-guid='crew']`)))
		userItem := `//*[@id='add-members']//*[` + cls("cometchat-users__item") + `][.//*[` + cls("cometchat-users__item-title") + `][normalize-space()='Dave']]`
		run("choose dave", chromedp.Click(chromedp.CSS(`#add-members-button`)), chromedp.WaitVisible(x(userItem)),
			chromedp.Click(x(userItem)), chromedp.WaitVisible(chromedp.CSS(`#add:not([disabled])`)), shots.snap("add-members"))
		member := `//*[@id='members']//*[` + cls("cometchat-group-members__item") + `][.//*[` + cls("cometchat-group-members__item-title") + `][normalize-space()='Dave']]`
		run("add dave", chromedp.Click(chromedp.CSS(`#add`)), chromedp.WaitVisible(x(member)))
		crewMember := func(uid string) (bool, string, error) {
			l, err := admin.ListMembers(ctx, "crew", client.ListMembersParams{PerPage: 100})
			if err != nil {
				return false, "", err
			}
			var uids []string
			for _, m := range l.Members {
				uids = append(uids, m.UID)
			}
			return slices.Contains(uids, uid), strings.Join(uids, ", "), nil
		}
		eventually(t, "the crew's members with dave", func() (bool, string, error) { return crewMember("dave") })
		settled("CometChat.addMembersToGroup")
		// The member's menu shows while the pointer is over the member.
		trigger := member + `//button[@aria-haspopup='true']`
		ban := `//*[@role='menu']//*[@role='menuitem'][normalize-space()='Ban']`
		run("ban dave", pointer(chromedp.MouseMoved, member), chromedp.WaitVisible(x(trigger)),
			pointer(chromedp.MousePressed, trigger), pointer(chromedp.MouseReleased, trigger),
			chromedp.WaitVisible(x(ban)), shots.snap("member-menu"),
			pointer(chromedp.MousePressed, ban), pointer(chromedp.MouseReleased, ban), chromedp.WaitNotPresent(x(member)))
		eventually(t, "the crew's banned users", func() (bool, string, error) {
			l, err := admin.ListBannedUsers(ctx, "crew", client.ListBannedUsersParams{PerPage: 100})
			if err != nil {
				return false, "", err
			}
			var uids []string
			for _, u := range l.Users {
				uids = append(uids, u.UID)
			}
			return slices.Contains(uids, "dave"), strings.Join(uids, ", "), nil
		})
		if in, members, err := crewMember("dave"); err != nil || in {
			t.Errorf("dave is banned, but the crew's members are %s (%v)", members, err)
		}
		settled("CometChat.banGroupMember")
	})

	action("block and unblock", func(t *testing.T, run runStep, settled func(...string)) {
		blocked := func(want bool) {
			t.Helper()
			eventually(t, "the users alice blocked", func() (bool, string, error) {
				l, err := admin.ListBlockedUsers(ctx, "alice", client.ListBlockedUsersParams{})
				if err != nil {
					return false, "", err
				}
				var uids []string
				for _, u := range l.Users {
					uids = append(uids, u.UID)
				}
				return slices.Contains(uids, "bob") == want, strings.Join(uids, ", "), nil
			})
		}
		run("open bob", chromedp.Click(title("Bob")), chromedp.WaitVisible(bubble("user_bob", "Live from REST")),
			chromedp.Click(x(`//*[@id='chat']//*[`+cls("cometchat-message-header")+`]//*[normalize-space()='Bob']`)),
			chromedp.WaitVisible(x(`//*[@id='details'][@data-uid='bob']//button[@id='block'][normalize-space()='Block']`)))
		run("block", chromedp.Click(chromedp.CSS(`#block`)),
			chromedp.WaitVisible(x(`//button[@id='block'][normalize-space()='Unblock']`)), chromedp.WaitVisible(chromedp.CSS(`#blocked`)),
			shots.snap("blocked"))
		blocked(true)
		settled("CometChat.blockUsers")
		run("unblock", chromedp.Click(chromedp.CSS(`#block`)),
			chromedp.WaitVisible(x(`//button[@id='block'][normalize-space()='Block']`)),
			chromedp.WaitVisible(chromedp.CSS(`#chat .cometchat-message-composer__input`)))
		blocked(false)
		settled("CometChat.unblockUsers")
	})

	action("search", func(t *testing.T, run runStep, settled func(...string)) {
		run("search tab", tab("search"), chromedp.WaitVisible(chromedp.CSS(`#search [data-testid='search-input']`)))
		run("search for briefs", append(typeInto(`#search [data-testid='search-input']`, "briefs"),
			chromedp.WaitVisible(x(`//*[@id='search']//*[contains(., 'Alice briefs the crew')][not(*)]`)), shots.snap("search"))...)
		settled("ConversationsRequest.fetchNext", "MessagesRequest.fetchPrevious")
		for _, path := range []string{"/conversations?", "/messages?"} {
			if !traffic.asked("GET ", path, "searchKey=briefs") {
				t.Errorf("the search sent natter no GET %s…searchKey=briefs", path)
			}
		}
	})

	action("attach an image and a PDF", func(t *testing.T, run runStep, settled func(...string)) {
		// Alice attaches an image, then a PDF, in her composer with bob, as a person does: the
		// attachment button, the option, the file chooser (intercepted: the file is set on the
		// Kit's input), then send once the upload is done. The Kit uploads each through
		// POST /v3/files/upload-url and the form natter signs, then sends the message.
		dir := t.TempDir()
		png, pdf := testPNG(t, 64, 48), testPDF()
		pngPath, pdfPath := filepath.Join(dir, "kitten.png"), filepath.Join(dir, "minutes.pdf")
		for p, b := range map[string][]byte{pngPath: png, pdfPath: pdf} {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := chromedp.Call(bctx, cdpage.SetInterceptFileChooserDialog, cdpage.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
			t.Fatal(err)
		}
		run("open bob", chromedp.Click(title("Bob")), chromedp.WaitVisible(bubble("user_bob", "Live from REST")))
		attach := func(option, path string, shown string) {
			t.Helper()
			item := fmt.Sprintf(`//*[%s][.//*[normalize-space()=%q]]`, cls("cometchat-message-composer__attachment-option"), option)
			// The option is pressed again until the Kit opens a file chooser (a press during
			// the popover's opening can miss); once one opened, the file is set on its input.
			choose := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
				for {
					for len(traffic.choosers) > 0 {
						<-traffic.choosers // a chooser an earlier press opened twice
					}
					actx, cancel := context.WithTimeout(ctx, 5*time.Second)
					var err error
					for _, a := range []chromedp.Action[chromedp.Void]{chromedp.KeyEvent(kb.Escape), // closes a popover a miss left open
						chromedp.Click(chromedp.CSS(`#chat .cometchat-message-composer__attachment-button`)),
						chromedp.WaitVisible(x(item)), chromedp.Click(x(item))} {
						if _, err = a(actx, tg); err != nil {
							break
						}
					}
					if err == nil {
						select {
						case id := <-traffic.choosers:
							cancel()
							_, err := cdp.Call(ctx, tg, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: []string{path}, BackendNodeID: id})
							return chromedp.Void{}, err
						case <-actx.Done():
						}
					}
					cancel()
					if ctx.Err() != nil {
						return chromedp.Void{}, fmt.Errorf("the Kit opened no file chooser: %w", ctx.Err())
					}
				}
			}
			run("attach "+filepath.Base(path), choose, chromedp.WaitVisible(chromedp.CSS(`#chat .cometchat-message-composer__tray`)))
			// Enabled once every file in the tray is uploaded.
			run("send "+filepath.Base(path), chromedp.Click(chromedp.CSS(`#chat .cometchat-message-composer__send-button:not([disabled])`)),
				chromedp.WaitNotPresent(chromedp.CSS(`#chat .cometchat-message-composer__tray`)))
			run("shown "+filepath.Base(path), chromedp.WaitVisible(x(`//*[@id='chat'][@data-conversation='user_bob']//*[@data-message-id]`+shown)))
		}
		mine := "https://" + host + "/files/e2e/"
		// The sender's own bubble may show the picked file's local copy (a blob: URL); the
		// receiver's below shows natter's.
		attach("Attach Image", pngPath, `//img[`+cls("cometchat-images-bubble__image")+`]`)
		attach("Attach File", pdfPath, `//*[`+cls("cometchat-files-bubble__card-name")+`][normalize-space()='minutes.pdf']`)
		run("sent", shots.snap("attachments-sent"))
		if !traffic.asked("POST ", "/files/upload-url") || !traffic.asked("POST https://"+host+"/files/e2e") {
			traffic.mu.Lock()
			var reqs []string
			for _, r := range traffic.requests {
				if strings.Contains(r, "files") {
					reqs = append(reqs, r)
				}
			}
			traffic.mu.Unlock()
			t.Errorf("the Kit did not upload through natter's upload-url and form: %q", reqs)
		}
		// On natter: two media messages to bob, each with its file at natter's URL, whose
		// bytes are the file's.
		var image, file client.Message
		eventually(t, "alice's media messages to bob", func() (bool, string, error) {
			l, err := admin.OnBehalfOf("bob").ListUserMessages(ctx, "alice", client.MessageListParams{Limit: 50})
			if err != nil {
				return false, "", err
			}
			var got []string
			for _, m := range l.Data {
				switch {
				case m.Sender == "alice" && m.Type == "image":
					image = m
				case m.Sender == "alice" && m.Type == "file":
					file = m
				}
				got = append(got, m.Sender+" "+m.Type)
			}
			return image.ID != "" && file.ID != "", strings.Join(got, ", "), nil
		})
		for _, c := range []struct {
			m           client.Message
			want        []byte
			disposition string
		}{{image, png, "inline"}, {file, pdf, "attachment"}} {
			if len(c.m.Data.Attachments) != 1 || !strings.HasPrefix(attachmentURL(c.m), mine) {
				t.Fatalf("message %s (%s) carries %+v, want one attachment at %s…", c.m.ID, c.m.Type, c.m.Data.Attachments, mine)
			}
			res, err := hc.Get(attachmentURL(c.m))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !bytes.Equal(b, c.want) || !strings.HasPrefix(res.Header.Get("Content-Disposition"), c.disposition) {
				t.Errorf("GET the %s's file: %d, %d bytes (want %d), Content-Disposition %q (want %s)", c.m.Type, res.StatusCode, len(b), len(c.want),
					res.Header.Get("Content-Disposition"), c.disposition)
			}
		}
		settled("CometChat.sendMediaMessage")

		// Bob's page, in a browser context of its own (the SDK keeps its session in the
		// origin's storage): alice's conversation shows the image, loaded from natter, and the
		// PDF as a file to download, which the Kit fetches from natter.
		bobToken, err := admin.CreateAuthToken(ctx, "bob", client.CreateAuthTokenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		bob, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(traffic.listen))
		defer cancel()
		if _, err := chromedp.Call(bob, network.Enable, network.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		runBob := stepsIn(t, bob)
		q := url.Values{"host": {host}, "app": {"e2e"}, "token": {bobToken.AuthToken}}
		var status string
		runBob("log in as bob", chromedp.Navigate(web.URL+"/index.html?"+q.Encode()),
			chromedp.WaitVisible(x(`//p[@id='status'][starts-with(., 'ready') or starts-with(., 'error')]`)),
			into(chromedp.Text(chromedp.CSS("#status")), &status))
		if status != "ready bob" {
			t.Fatalf("bob's page says %q, want ready bob", status)
		}
		// What the Kit asks while it starts (isFeatureEnabled for extensions natter does not
		// have is rejected, on alice's page too) is no part of this action.
		var bobStart sdkCalls
		runBob("bob's list", chromedp.WaitVisible(title("Alice")), waitJS(`window.__sdkCalls.pending === 0`),
			into(chromedp.Evaluate[sdkCalls](`window.__sdkCalls`), &bobStart))
		img := fmt.Sprintf(`//*[@id='chat'][@data-conversation='user_alice']//*[@data-message-id=%q]//img[%s][@src=%q]`,
			image.ID, cls("cometchat-images-bubble__image"), attachmentURL(image))
		download := fmt.Sprintf(`//*[@id='chat'][@data-conversation='user_alice']//*[@data-message-id=%q]//*[%s][.//*[normalize-space()='minutes.pdf']]//button[%s]`,
			file.ID, cls("cometchat-files-bubble__card"), cls("cometchat-download-button__icon"))
		runBob("bob sees the image", chromedp.Click(title("Alice")), chromedp.WaitVisible(x(img)),
			waitJS(fmt.Sprintf(`(() => { const i = document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
				return !!i && i.complete && i.naturalWidth === 64 && i.naturalHeight === 48; })()`, img)),
			chromedp.WaitVisible(x(download)), shots.snap("bob-attachments"))
		runBob("bob downloads the PDF", chromedp.Click(x(download)),
			waitJS(`performance.getEntriesByType("resource").some((e) => e.name === `+strconv.Quote(attachmentURL(file))+` && e.responseEnd > 0)`))
		if !traffic.asked("GET " + attachmentURL(file)) {
			t.Errorf("bob's page did not fetch the PDF from natter")
		}
		// Bob's page left no SDK promise pending or rejected either.
		var bobCalls sdkCalls
		runBob("bob's SDK calls", waitJS(`window.__sdkCalls.pending === 0`), into(chromedp.Evaluate[sdkCalls](`window.__sdkCalls`), &bobCalls))
		for _, f := range bobCalls.Failures[len(bobStart.Failures):] {
			t.Errorf("an SDK promise of bob's page was rejected: %s", f)
		}
	})

	t.Logf("the steps took %v after the install", time.Since(started).Round(time.Millisecond))
}

// pageState reads what the page recorded: window.__sdkCalls, which index.jsx keeps of the
// SDK's promises, and the requests natter refused.
type pageState struct{ traffic *natterTraffic }

type pageMark struct{ seq, refused, done, rejected int }

type sdkCalls struct {
	Seq      int               `json:"seq"`
	Pending  int               `json:"pending"`
	Open     map[string]string `json:"open"`
	Done     []string          `json:"done"`
	Failures []string          `json:"failures"`
}

func (p pageState) mark(t *testing.T, run runStep) pageMark {
	t.Helper()
	var c sdkCalls
	run("read the SDK's calls", into(chromedp.Evaluate[sdkCalls](`window.__sdkCalls`), &c))
	p.traffic.mu.Lock()
	defer p.traffic.mu.Unlock()
	return pageMark{seq: c.Seq, refused: len(p.traffic.refused), done: len(c.Done), rejected: len(c.Failures)}
}

// check waits until no SDK promise made since m is pending, then fails t for each promise
// rejected and each request natter refused since m, and for each of want that did not
// complete since m (which shows too that the page counts the SDK's calls). A promise an
// earlier action left pending is that action's failure, not this one's.
func (p pageState) check(t *testing.T, run runStep, m pageMark, want ...string) {
	t.Helper()
	var c sdkCalls
	run("no SDK promise pending", func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, perr := chromedp.Poll[bool](fmt.Sprintf(`Object.keys(window.__sdkCalls.open).every((id) => +id <= %d)`, m.seq),
			chromedp.WithPollingTimeout(15*time.Second))(ctx, tg)
		var rerr error
		c, rerr = chromedp.Evaluate[sdkCalls](`window.__sdkCalls`)(ctx, tg)
		if rerr != nil {
			return chromedp.Void{}, rerr
		}
		if perr != nil {
			var open []string
			for id, name := range c.Open {
				if n, _ := strconv.Atoi(id); n > m.seq {
					open = append(open, name)
				}
			}
			slices.Sort(open)
			t.Errorf("SDK promise(s) still pending: %s", strings.Join(open, ", "))
		}
		return chromedp.Void{}, nil
	})
	if len(c.Failures) > m.rejected {
		for _, f := range c.Failures[m.rejected:] {
			t.Errorf("an SDK promise was rejected: %s", f)
		}
	}
	var done []string
	if len(c.Done) > m.done {
		done = c.Done[m.done:]
	}
	for _, w := range want {
		if !slices.Contains(done, w) {
			t.Errorf("%s did not complete; the SDK calls that did: %s", w, strings.Join(done, ", "))
		}
	}
	p.traffic.mu.Lock()
	defer p.traffic.mu.Unlock()
	for _, r := range p.traffic.refused[m.refused:] {
		t.Errorf("natter refused the page: %s", r)
	}
}

// typeInto types text into the input css finds a key at a time, each once the input shows the
// keys before it: the Kit's search input is controlled by state its search updates, and
// keys sent faster than it renders are lost.
func typeInto(css, text string) []chromedp.Action[chromedp.Void] {
	as := []chromedp.Action[chromedp.Void]{chromedp.Click(chromedp.CSS(css))}
	for i, r := range text {
		as = append(as, chromedp.SendKeys(chromedp.CSS(css), string(r)), waitJS(fmt.Sprintf(`document.querySelector(%q).value === %q`, css, text[:i+len(string(r))])))
	}
	return as
}

// waitJS waits until the expression is true in the page.
func waitJS(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Minute))(ctx, t)
		return chromedp.Void{}, err
	}
}

// cls is an XPath test that an element has the class name (not merely one that starts with it).
func cls(name string) string {
	return fmt.Sprintf(`contains(concat(' ', normalize-space(@class), ' '), ' %s ')`, name)
}

// xq quotes s as an XPath string literal.
func xq(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return `"` + s + `"`
}

func groupItem(name string) string {
	return fmt.Sprintf(`//*[%s][.//*[%s][normalize-space()=%q]]`, cls("cometchat-groups__item"), cls("cometchat-groups__item-title"), name)
}

// eventually waits until cond, read over REST, holds; it fails t with cond's last account.
func eventually(t *testing.T, what string, cond func() (bool, string, error)) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ok, got, err := cond()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		last = got
	}
	t.Fatalf("%s: still %q", what, last)
}

// The page's parts, as XPath. conv is the open conversation's key in index.jsx: user_<uid>
// or group_<guid>.
func bubble(conv, text string) chromedp.Search {
	return chromedp.Search(fmt.Sprintf(`//*[@id='chat'][@data-conversation=%q]//*[@data-message-id]`+
		`//*[contains(@class,'cometchat-text-bubble__text')][normalize-space()=%q]`, conv, text))
}

func inMessage(id string) string { return fmt.Sprintf(`//*[@id='chat']//*[@data-message-id=%q]`, id) }

// infoSection is a section of the message-information panel by its title (Read, Delivered).
func infoSection(title string) string {
	return fmt.Sprintf(`//*[contains(@class,'cometchat-message-information__section')]`+
		`[*[contains(@class,'section-title')][normalize-space()=%q]]`, title)
}

type runStep func(step string, actions ...chromedp.Action[chromedp.Void])

// compose types text into the open conversation's composer and sends it; the message list
// then shows it.
func compose(t *testing.T, run runStep, conv, text string) {
	t.Helper()
	input := chromedp.CSS(`#chat .cometchat-message-composer__input`)
	run("compose in "+conv, chromedp.Click(input), chromedp.SendKeys(input, text),
		chromedp.Click(chromedp.CSS(`#chat .cometchat-message-composer__send-button:not([disabled])`)),
		chromedp.WaitVisible(bubble(conv, text)))
}

// openInfo opens the message-information panel of message id from its options, as a person
// would.
func openInfo(run runStep, id string) {
	messageOption(run, id, "Info", chromedp.WaitVisible(chromedp.CSS(`.cometchat-message-information`)))
}

// messageOption chooses the option title of message id, as a person would: the pointer over
// the bubble shows its quick options, one a button labelled title, or "More options" opens
// the menu that has it; done waits for what the option opens. The Kit closes an open menu
// on any scroll, which a message arriving or a receipt can cause: the pointer moves without
// scrolling, and the attempt is made again (from the menu closed) until done holds or the
// step's time runs out.
func messageOption(run runStep, id, title string, done chromedp.Action[chromedp.Void]) {
	msg := inMessage(id)
	quick := fmt.Sprintf(`%s//button[@aria-label=%q]`, msg, title)
	more := msg + `//button[@aria-label='More options']`
	item := fmt.Sprintf(`%s//*[@role='menu']//*[normalize-space()=%q]`, msg, title)
	attempt := func(ctx context.Context, t *chromedp.Target) error {
		for _, a := range []chromedp.Action[chromedp.Void]{
			chromedp.KeyEvent(kb.Escape), // closes a menu a failed attempt left open
			pointer(chromedp.MouseMoved, msg+`//*[contains(@class,'cometchat-text-bubble__text')]`),
			chromedp.WaitVisible(chromedp.Search(more)),
		} {
			if _, err := a(ctx, t); err != nil {
				return err
			}
		}
		n, err := chromedp.Evaluate[int](fmt.Sprintf(`document.evaluate(%q, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null).snapshotLength`, quick))(ctx, t)
		if err != nil {
			return err
		}
		steps := []chromedp.Action[chromedp.Void]{pointer(chromedp.MousePressed, quick), pointer(chromedp.MouseReleased, quick)}
		if n == 0 {
			steps = []chromedp.Action[chromedp.Void]{
				pointer(chromedp.MousePressed, more), pointer(chromedp.MouseReleased, more),
				chromedp.WaitVisible(chromedp.Search(item)),
				pointer(chromedp.MousePressed, item), pointer(chromedp.MouseReleased, item),
			}
		}
		for _, a := range append(steps, done) {
			if _, err := a(ctx, t); err != nil {
				return err
			}
		}
		return nil
	}
	run(title+" on message "+id, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			actx, cancel := context.WithTimeout(ctx, 4*time.Second)
			err := attempt(actx, t)
			cancel()
			if err == nil || ctx.Err() != nil {
				return chromedp.Void{}, err
			}
		}
	})
}

// pointer dispatches a left-button mouse event at the middle of the element xpath finds,
// without scrolling it into view (chromedp.Click would).
func pointer(typ input.DispatchMouseEventType, xpath string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		at, err := chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
			const e = document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
			if (!e) return [];
			const r = e.getBoundingClientRect();
			return [r.x + r.width / 2, r.y + r.height / 2];
		})()`, xpath))(ctx, t)
		if err != nil {
			return chromedp.Void{}, err
		}
		if len(at) != 2 {
			return chromedp.Void{}, fmt.Errorf("no element at %s", xpath)
		}
		button := input.MouseButtonLeft
		if typ == chromedp.MouseMoved {
			button = input.MouseButtonNone
		}
		return chromedp.MouseEvent(typ, at[0], at[1], func(p *input.DispatchMouseEventParams) {
			p.Button, p.ClickCount = button, 1
		})(ctx, t)
	}
}

// waitREST waits until list, read over REST, holds a text message from sender saying text.
func waitREST(t *testing.T, what string, list func() ([]client.Message, error), sender, text string) {
	t.Helper()
	var last []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		msgs, err := list()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		last = last[:0]
		for _, m := range msgs {
			if m.Sender == sender && m.Data.Text == text {
				return
			}
			last = append(last, m.Sender+": "+m.Data.Text)
		}
	}
	t.Fatalf("%s lacks %s's %q; it has %q", what, sender, text, last)
}

// into runs an action that returns a value and keeps the value in *v.
func into[T any](a chromedp.Action[T], v *T) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		var err error
		*v, err = a(ctx, t)
		return chromedp.Void{}, err
	}
}

// attachmentURL is the url of a message's first attachment.
func attachmentURL(m client.Message) string {
	if len(m.Data.Attachments) == 0 {
		return ""
	}
	u, _ := m.Data.Attachments[0]["url"].(string)
	return u
}

// testPNG is a w×h PNG, a gradient.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 4), G: uint8(y * 5), B: 160, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// testPDF is a one-page PDF that says hello.
func testPDF() []byte {
	return []byte("%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n" +
		"2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n" +
		"3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 200 100]>> endobj\n" +
		"trailer <</Root 1 0 R>>\n%%EOF\n")
}
