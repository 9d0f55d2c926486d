package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
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
// shows bob's read receipt. Every request the page made to natter was answered below 400.
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
	for _, u := range []client.CreateUserRequest{{UID: "alice", Name: "Alice"}, {UID: "bob", Name: "Bob"}, {UID: "carol", Name: "Carol"}} {
		if _, err := admin.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.CreateGroup(ctx, client.CreateGroupRequest{GUID: "crew", Name: "Crew", Type: "public", Owner: "alice",
		Members: &client.MemberLists{Participants: []string{"bob", "carol"}}}); err != nil {
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
	send("carol", "crew", "group", "Carol says hello to the crew")
	toCrew := send("alice", "crew", "group", "Alice briefs the crew")
	if _, err := admin.OnBehalfOf("bob").MarkUserConversation(ctx, "alice", client.MarkRead, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.OnBehalfOf("bob").MarkGroupConversation(ctx, "crew", client.MarkRead, ""); err != nil {
		t.Fatal(err)
	}
	token, err := admin.CreateAuthToken(ctx, "alice", client.CreateAuthTokenRequest{})
	if err != nil {
		t.Fatal(err)
	}

	traffic := &natterTraffic{prefixes: []string{"https://" + host + "/", "wss://" + host}, requests: map[network.RequestID]string{}}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900), chromedp.Flag("ignore-certificate-errors", true))
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
	bctx, cancel = context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	shots := newShots(t)
	// steps makes the step runner of a test: a step that fails screenshots the page and
	// fails t.
	steps := func(t *testing.T) runStep {
		return func(step string, actions ...chromedp.Action[chromedp.Void]) {
			t.Helper()
			// The first step loads and parses the Kit's bundle, several MB: on two cores
			// busy with other tests it once took more than 20 s (a blank page, no request
			// made), so it gets a minute.
			d := 20 * time.Second
			if step == "log in" {
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
			into(chromedp.Text(chromedp.CSS(`.cometchat-message-information`)), &receipts), shots.snap("crew-info"))
		if !strings.Contains(receipts, "Bob") {
			t.Errorf("the information of alice's message to the crew: %q, want bob's read receipt", receipts)
		}
	})
	t.Logf("the steps took %v after the install", time.Since(started).Round(time.Millisecond))
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

// openInfo opens the message-information panel of message id from its options menu, as a
// person would: the pointer over the bubble shows its options, "More options" opens the
// menu, "Info" the panel. The Kit closes an open menu on any scroll, which a message
// arriving or a receipt can cause: the pointer moves without scrolling, and the attempt is
// made again (from the menu closed) until the panel opens or the step's time runs out.
func openInfo(run runStep, id string) {
	msg := inMessage(id)
	attempt := []chromedp.Action[chromedp.Void]{
		chromedp.KeyEvent(kb.Escape), // closes a menu a failed attempt left open
		pointer(chromedp.MouseMoved, msg+`//*[contains(@class,'cometchat-text-bubble__text')]`),
		chromedp.WaitVisible(chromedp.Search(msg + `//button[@aria-label='More options']`)),
		pointer(chromedp.MousePressed, msg+`//button[@aria-label='More options']`),
		pointer(chromedp.MouseReleased, msg+`//button[@aria-label='More options']`),
		chromedp.WaitVisible(chromedp.Search(msg + `//*[@role='menu']//*[normalize-space()='Info']`)),
		pointer(chromedp.MousePressed, msg+`//*[@role='menu']//*[normalize-space()='Info']`),
		pointer(chromedp.MouseReleased, msg+`//*[@role='menu']//*[normalize-space()='Info']`),
		chromedp.WaitVisible(chromedp.CSS(`.cometchat-message-information`)),
	}
	run("open the information of message "+id, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			actx, cancel := context.WithTimeout(ctx, 4*time.Second)
			var err error
			for _, a := range attempt {
				if _, err = a(actx, t); err != nil {
					break
				}
			}
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
