package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/internal/chromium"
	"github.com/natter-chat/natter/webhook"
)

// artefacts keeps screenshots, and writes them out if the test fails (or always, with
// NATTER_TEST_SCREENSHOTS=always): to $NATTER_TEST_ARTEFACTS, or else console/testdata-out
// (ignored by git).
type artefacts struct {
	mu    sync.Mutex
	shots []shot
}

type shot struct {
	name string
	png  []byte
}

func newArtefacts(t *testing.T) *artefacts {
	a := &artefacts{}
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("NATTER_TEST_SCREENSHOTS") != "always" {
			return
		}
		dir := os.Getenv("NATTER_TEST_ARTEFACTS")
		if dir == "" {
			dir = "testdata-out"
		}
		dir = filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Logf("artefacts: %v", err)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, s := range a.shots {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-%s.png", i, s.name)), s.png, 0o644); err != nil {
				t.Logf("artefacts: %v", err)
			}
		}
		abs, _ := filepath.Abs(dir)
		t.Logf("screenshots of each page: %s", abs)
	})
	return a
}

// snap screenshots the page as it is now.
func (a *artefacts) snap(name string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		b, err := chromedp.FullScreenshot(100)(ctx, t) // quality 100: PNG
		if err != nil {
			return chromedp.Void{}, err
		}
		a.mu.Lock()
		a.shots = append(a.shots, shot{name, b})
		a.mu.Unlock()
		return chromedp.Void{}, nil
	}
}

// into runs an action that returns a value and keeps the value in *v.
func into[T any](a chromedp.Action[T], v *T) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		var err error
		*v, err = a(ctx, t)
		return chromedp.Void{}, err
	}
}

// TestBrowser drives the console in headless Chromium: sign-in refused and done, a user
// created and listed, an API key created (shown once) and deleted, a webhook created with its
// secret, its delivery log and a replay, a forged post refused, an idle session ended, and no
// Content Security Policy violation on the way.
func TestBrowser(t *testing.T) {
	t.Parallel() // the package's longest test: the others run beside it
	exe := chromium.Path(t, "the console's browser tests")
	e := newEnv(t, "sqlite")
	shots := newArtefacts(t)
	ctx := context.Background()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1200, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()

	// Every console message and log entry: a CSP violation is logged as "Refused to …".
	var mu sync.Mutex
	var problems, csp []string
	forgedDone := false
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *log.EventEntryAdded:
			// The refusals the test provokes are expected: the wrong key's 401, the forged
			// post's 403.
			expected := strings.Contains(ev.Entry.Text, "status of 401") && strings.HasSuffix(ev.Entry.URL, "/console/signin") ||
				strings.Contains(ev.Entry.Text, "status of 403") && strings.HasSuffix(ev.Entry.URL, "/console/users") && !forgedDone
			if !expected && (ev.Entry.Level == log.EntryLevelError || strings.Contains(ev.Entry.Text, "Content Security Policy")) {
				problems = append(problems, ev.Entry.Text+" "+ev.Entry.URL)
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("%+v", ev.ExceptionDetails))
		case *network.EventResponseReceived:
			if ev.Type == network.ResourceTypeDocument || ev.Type == network.ResourceTypeXHR {
				if v, ok := ev.Response.Headers["Content-Security-Policy"]; ok {
					csp = append(csp, fmt.Sprint(v))
				} else {
					csp = append(csp, "missing on "+ev.Response.URL)
				}
			}
		}
	}
	bctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf), chromedp.WithListener(listen))
	defer cancel()
	if _, err := chromedp.Call(bctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// The whole run is bounded by a timeout on a child of the context that started the
	// browser (a timeout on that one would stop the browser).
	bctx, cancel = context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(bctx, 20*time.Second) // a step that waits in vain fails in 20s
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			_ = chromedp.Do(bctx, shots.snap("failed-"+strings.ReplaceAll(step, " ", "-")))
			t.Fatalf("%s: %v", step, err)
		}
	}
	h1 := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//h1[normalize-space()=%q]`, text)))
	}
	x := func(xpath string) chromedp.Search { return chromedp.Search(xpath) }
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	base := e.srv.URL

	run("open", chromedp.Navigate(base+"/console"), h1("Sign in"), shots.snap("signin"))

	// The skip link is the first thing the keyboard reaches.
	var focused string
	run("keyboard", chromedp.KeyEvent("\t"), into(chromedp.Evaluate[string](`document.activeElement.textContent`), &focused))
	if focused != "Skip to the content" {
		t.Errorf("first Tab focuses %q, want the skip link", focused)
	}

	var msg string
	run("wrong key", chromedp.SendKeys(css("#appId"), "demo"), chromedp.SendKeys(css("#apiKey"), "0123456789abcdef0123456789abcdef"),
		chromedp.Submit(css("#apiKey")), chromedp.WaitVisible(css(`[role=alert]`)), into(chromedp.Text(css(`[role=alert]`)), &msg),
		shots.snap("signin-refused"))
	if !strings.Contains(msg, "No app with that id has that API key") {
		t.Errorf("wrong key says %q", msg)
	}

	run("sign in", chromedp.SetValue(css("#appId"), "demo"), chromedp.SendKeys(css("#apiKey"), e.full), chromedp.Submit(css("#apiKey")),
		h1("Overview"), chromedp.WaitVisible(css(`svg.chart`)), shots.snap("overview"))

	var users string
	run("create user", chromedp.Click(x(`//nav//a[normalize-space()='Users']`)), h1("Users"), shots.snap("users"),
		chromedp.SendKeys(css("#new-uid"), "alice"), chromedp.SendKeys(css("#new-name"), "Alice Liddell"),
		chromedp.Click(x(`//button[normalize-space()='Create user']`)), h1("User Alice Liddell"), shots.snap("user"),
		chromedp.Click(x(`//button[normalize-space()='Create an auth token']`)), chromedp.WaitVisible(css("#new-token")), shots.snap("user-token"),
		chromedp.Click(x(`//a[normalize-space()='All users']`)), h1("Users"), into(chromedp.Text(css("#users")), &users))
	if !strings.Contains(users, "alice") || !strings.Contains(users, "Alice Liddell") {
		t.Errorf("users list lacks the new user:\n%s", users)
	}

	var key, keys string
	run("create key", chromedp.Click(x(`//nav//a[normalize-space()='API keys']`)), h1("API keys"),
		chromedp.SendKeys(css("#key-name"), "ci-robot"), chromedp.Click(x(`//button[normalize-space()='Create key']`)),
		chromedp.WaitVisible(css("#new-key")), into(chromedp.Text(css("#new-key")), &key), shots.snap("keys-new"))
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(key) {
		t.Fatalf("new key shown as %q", key)
	}
	var shown bool
	run("key shown once", chromedp.Navigate(base+"/console/keys"), h1("API keys"), into(chromedp.Text(css("#keys")), &keys),
		into(chromedp.Evaluate[bool](`document.body.innerHTML.includes(`+fmt.Sprintf("%q", key)+`)`), &shown), shots.snap("keys"))
	if shown || !strings.Contains(keys, "ci-robot") {
		t.Errorf("after a reload: key shown %v; list:\n%s", shown, keys)
	}
	run("delete key", chromedp.Click(x(`//button[@aria-label='Delete key ci-robot']`)),
		chromedp.WaitNotPresent(x(`//td[normalize-space()='ci-robot']`)), into(chromedp.Text(css("#keys")), &keys))
	if strings.Contains(keys, "ci-robot") {
		t.Errorf("deleted key still listed:\n%s", keys)
	}

	// A group with alice in it; a message to it sent as alice, a reaction and a thread reply,
	// all seen in the conversation viewer.
	var members, conv, thread string
	run("create group", chromedp.Click(x(`//nav//a[normalize-space()='Groups']`)), h1("Groups"),
		chromedp.SendKeys(css("#new-guid"), "team"), chromedp.SendKeys(css("#new-gname"), "The Team"),
		chromedp.Click(x(`//button[normalize-space()='Create group']`)), h1("Group The Team"),
		chromedp.SendKeys(css("#add-uids"), "alice"), chromedp.Click(x(`//button[normalize-space()='Add members']`)),
		chromedp.WaitVisible(x(`//li[normalize-space()='alice: added']`)), into(chromedp.Text(css("#member-list")), &members), shots.snap("group"),
		chromedp.SetValue(css("#g-name"), "The A Team"), chromedp.Click(x(`//button[normalize-space()='Save']`)), h1("Group The A Team"))
	if !strings.Contains(members, "Alice Liddell") {
		t.Errorf("members:\n%s", members)
	}
	run("send as alice", chromedp.Click(x(`//nav//a[normalize-space()='Messages']`)), h1("Messages"),
		chromedp.SendKeys(css("#sender"), "alice"), chromedp.SendKeys(css("#receiver"), "team"),
		chromedp.SetValue(css("#receiverType"), "group"), chromedp.SendKeys(css("#text"), "Hello, team"),
		chromedp.Click(x(`//button[normalize-space()='Send']`)), h1("Conversation group_team"),
		chromedp.WaitVisible(x(`//p[@class='text'][normalize-space()='Hello, team']`)))
	var sent chat.MessageList
	sent, err := e.svc.ListGroupMessages(ctx, principal(t, e), "team", chat.MessagePage{Limit: 10, Categories: []string{"message"}})
	if err != nil || len(sent.Messages) != 1 {
		t.Fatalf("the sent message: %v %+v", err, sent.Messages)
	}
	id := strconv.FormatInt(sent.Messages[0].ID, 10)
	run("reaction and thread", chromedp.Click(css("#m"+id+" summary")), chromedp.SendKeys(css("#react-uid-"+id), "alice"),
		chromedp.Click(css("#m"+id+" .react button")), chromedp.WaitVisible(css(`#m`+id+` .reaction`)),
		into(chromedp.Text(css("#messages")), &conv), shots.snap("conversation"),
		chromedp.Navigate(base+"/console/messages?parent="+id), h1("Thread of message "+id),
		chromedp.SendKeys(css("#sender"), "alice"), chromedp.SendKeys(css("#text"), "A reply"),
		chromedp.Click(x(`//button[normalize-space()='Send']`)), chromedp.WaitVisible(x(`//p[@class='text'][normalize-space()='A reply']`)),
		into(chromedp.Text(css("#messages")), &thread), shots.snap("thread"),
		chromedp.Navigate(base+"/console/messages?conversation=group_team"), chromedp.WaitVisible(x(`//a[normalize-space()='1 reply']`)))
	if !strings.Contains(conv, "👍 1") {
		t.Errorf("conversation lacks the reaction:\n%s", conv)
	}

	// Moderation: a rule holds messages saying "forbidden"; two sent as alice are held (not
	// in the conversation); on the Moderation page one is approved, and is delivered, and the
	// other rejected, and stays hidden.
	if _, err := e.svc.Moderation().CreateRule(ctx, principal(t, e), chat.RuleInput{ID: "no-forbidden", Name: "No forbidden words",
		Conditions: []chat.Condition{{Category: "word", Value: []string{"forbidden"}}}, Action: []string{chat.ActionBlockMessage}}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Held: a forbidden word", "Held too: forbidden again"} {
		run("send a held message", chromedp.Navigate(base+"/console/messages"), h1("Messages"),
			chromedp.SendKeys(css("#sender"), "alice"), chromedp.SendKeys(css("#receiver"), "team"),
			chromedp.SetValue(css("#receiverType"), "group"), chromedp.SendKeys(css("#text"), text),
			chromedp.Click(x(`//button[normalize-space()='Send']`)), h1("Conversation group_team"),
			into(chromedp.Text(css("#messages")), &conv))
		if strings.Contains(conv, "forbidden") {
			t.Fatalf("a held message is shown in the conversation:\n%s", conv)
		}
	}
	held, err := e.svc.Moderation().BlockedMessages(ctx, principal(t, e), 0, 10)
	if err != nil || len(held) != 2 {
		t.Fatalf("held messages: %v %+v", err, held)
	}
	approve, reject := strconv.FormatInt(held[1].MessageID, 10), strconv.FormatInt(held[0].MessageID, 10) // newest first
	var queue string
	run("moderation page", chromedp.Click(x(`//nav//a[normalize-space()='Moderation']`)), h1("Moderation"),
		chromedp.WaitVisible(css("#b"+approve)), into(chromedp.Text(css("#blocked-messages")), &queue), shots.snap("moderation"))
	if !strings.Contains(queue, "No forbidden words") || !strings.Contains(queue, "Held: a forbidden word") || !strings.Contains(queue, "alice") {
		t.Errorf("the held queue:\n%s", queue)
	}
	run("approve and reject", chromedp.Click(x(`//button[@aria-label='Approve held message `+approve+`']`)), chromedp.WaitNotPresent(css("#b"+approve)),
		chromedp.Click(x(`//button[@aria-label='Reject held message `+reject+`']`)), chromedp.WaitNotPresent(css("#b"+reject)),
		chromedp.WaitVisible(x(`//td[normalize-space()='No held messages waiting.']`)), shots.snap("moderation-reviewed"),
		chromedp.Navigate(base+"/console/messages?conversation=group_team"),
		chromedp.WaitVisible(x(`//p[@class='text'][normalize-space()='Held: a forbidden word']`)), into(chromedp.Text(css("#messages")), &conv))
	if strings.Contains(conv, "Held too") {
		t.Errorf("the rejected message is shown in the conversation:\n%s", conv)
	}

	// A webhook to a local receiver, delivered by a real worker: created with its secret shown
	// once, a message makes a delivery that the log shows delivered, it is replayed, and the
	// secret rotated.
	var received atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
	}))
	defer receiver.Close()
	wctx, stopWorkers := context.WithCancel(ctx)
	workersDone := make(chan struct{})
	go func() {
		defer close(workersDone)
		webhook.New(e.svc, webhook.Config{Workers: 2, AllowPrivate: true, Poll: 50 * time.Millisecond, Backoff: 100 * time.Millisecond}).Run(wctx)
	}()
	defer func() { stopWorkers(); <-workersDone }()
	var secret, secret2, dlog string
	run("create webhook", chromedp.Click(x(`//nav//a[normalize-space()='Webhooks']`)), h1("Webhooks"),
		chromedp.SendKeys(css("#wh-id"), "orders"), chromedp.SendKeys(css("#wh-url"), receiver.URL+"/chat"),
		chromedp.Click(css(`input[value=message_sent]`)), chromedp.Click(x(`//button[normalize-space()='Create webhook']`)),
		h1("Webhook orders"), into(chromedp.Text(css("#new-secret")), &secret), shots.snap("webhook-new"))
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("new webhook's secret shown as %q", secret)
	}
	alice := principal(t, e).ActingAs("alice")
	if _, err := e.svc.CreateUser(ctx, alice, chat.UserCreate{UID: "bob", Name: "Bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SendMessage(ctx, alice, chat.MessageSend{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "text",
		Data: []byte(`{"text":"hello"}`)}); err != nil {
		t.Fatal(err)
	}
	// The worker delivers within a moment: reload the log until it says so.
	for deadline := time.Now().Add(15 * time.Second); ; {
		run("delivery log", chromedp.Navigate(base+"/console/webhooks/orders"), h1("Webhook orders"),
			into(chromedp.Text(css("#deliveries")), &dlog))
		if strings.Contains(dlog, "delivered") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(dlog, "delivered") || !strings.Contains(dlog, "200") || received.Load() == 0 {
		t.Errorf("delivery log after %d deliveries received:\n%s", received.Load(), dlog)
	}
	run("replay",
		chromedp.Click(css(`button[aria-label^=Replay]`)), chromedp.WaitVisible(x(`//p[@role='status'][contains(., 'Scheduled 1 delivery again')]`)),
		shots.snap("webhook-log"),
		chromedp.Click(x(`//button[normalize-space()='Rotate the signing secret']`)), chromedp.WaitVisible(x(`//p[@role='status'][contains(., 'keeps signing')]`)),
		into(chromedp.Text(css("#new-secret")), &secret2))
	if !strings.HasPrefix(secret2, "whsec_") || secret2 == secret {
		t.Errorf("rotated secret %q (was %q)", secret2, secret)
	}

	// Notification providers: listed without credentials; b made the default, a deleted.
	providers(t, e)
	var fcm string
	run("notification providers", chromedp.Click(x(`//nav//a[normalize-space()='Notifications']`)), h1("Notification providers"),
		chromedp.Click(x(`//button[@aria-label='Make FCM provider b the default']`)), chromedp.WaitNotPresent(x(`//button[@aria-label='Make FCM provider b the default']`)),
		chromedp.Click(x(`//button[@aria-label='Delete FCM provider a']`)), chromedp.WaitNotPresent(css("#fcm-a")),
		into(chromedp.Text(css("#fcm-providers")), &fcm), shots.snap("notifications"))
	if !strings.Contains(fcm, "default") || strings.Contains(fcm, keyBody(testKeys().rsa)) {
		t.Errorf("FCM providers after the changes:\n%s", fcm)
	}
	// A feature restricted on a role's page is listed there.
	run("restrict feature", chromedp.Navigate(base+"/console/roles/default"), h1("Role Default Role"),
		chromedp.SetValue(css("#feature"), "u.listUsers"), chromedp.Click(x(`//button[normalize-space()='Restrict']`)),
		chromedp.WaitVisible(x(`//table[@id='restricted-list']//code[normalize-space()='u.listUsers']`)), shots.snap("role"))

	// A forged post from the page's own script context, without the CSRF token.
	var status int
	run("forged post", into(chromedp.Evaluate[int](`fetch('/console/users', {method: 'POST', body: new URLSearchParams({uid: 'mallory', name: 'M'})}).then(r => r.status)`,
		chromedp.EvalAwaitPromise), &status))
	mu.Lock()
	forgedDone = true
	mu.Unlock()
	if status != 403 {
		t.Errorf("a post without the CSRF token: %d, want 403", status)
	}

	// Every page: each form control has a label, the landmarks are there, and at phone width
	// nothing is wider than the screen (wide tables scroll inside themselves).
	const unlabelled = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
		.filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).map(e => e.name || e.id)`
	const landmarks = `!!document.querySelector('main h1') && !!document.querySelector('nav[aria-label] a[aria-current=page]')`
	run("phone width", call(emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 375, Height: 740, DeviceScaleFactor: 2, Mobile: true}))
	for _, path := range []string{"/console/", "/console/users", "/console/users/alice", "/console/groups", "/console/groups/team",
		"/console/messages", "/console/messages?parent=" + id, "/console/moderation", "/console/roles", "/console/keys", "/console/webhooks", "/console/webhooks/orders",
		"/console/notifications",
		"/console/roles/default", "/console/groups/team/permissions"} {
		var overflow, marks bool
		var bare []string
		run("page "+path, chromedp.Navigate(base+path), chromedp.WaitVisible(css("main h1")),
			into(chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`), &overflow),
			into(chromedp.Evaluate[[]string](unlabelled), &bare), into(chromedp.Evaluate[bool](landmarks), &marks),
			shots.snap("phone"+strings.NewReplacer("/", "-", "?", "-", "=", "-").Replace(strings.TrimPrefix(path, "/console"))))
		if overflow {
			t.Errorf("%s is wider than a 375px screen", path)
		}
		if len(bare) > 0 {
			t.Errorf("%s: form controls without a label: %v", path, bare)
		}
		if !marks {
			t.Errorf("%s: no main heading, or no navigation marking the current page", path)
		}
	}
	run("desktop width", call(emulation.ClearDeviceMetricsOverride, cdp.Empty{}))

	// An idle session, met by an htmx navigation: the sign-in page loads whole, and after
	// signing in again forms work (the page carries the new session's CSRF token, not the
	// old one's).
	run("before idling", chromedp.Navigate(base+"/console/"), h1("Overview"))
	e.clock.advance(31 * time.Minute)
	run("idle session", chromedp.Click(x(`//nav//a[normalize-space()='Users']`)), h1("Sign in"), shots.snap("expired"),
		chromedp.SendKeys(css("#appId"), "demo"), chromedp.SendKeys(css("#apiKey"), e.full),
		chromedp.Click(x(`//button[normalize-space()='Sign in']`)), h1("Overview"), // a click, as a person would: through htmx
		chromedp.Click(x(`//nav//a[normalize-space()='Users']`)), h1("Users"),
		chromedp.SendKeys(css("#new-uid"), "dave"), chromedp.SendKeys(css("#new-name"), "Dave"),
		chromedp.Click(x(`//button[normalize-space()='Create user']`)), h1("User Dave"))
	e.clock.advance(31 * time.Minute)
	// Refused either way: through htmx it goes to the sign-in page; clicked before htmx has
	// taken the freshly swapped form over (a race the browser's load decides), it is a plain
	// post, answered 401 "Signed out", which the browser logs as a failed load: that one
	// entry is expected, not a problem.
	mu.Lock()
	before := len(problems)
	mu.Unlock()
	run("idle form post", chromedp.SendKeys(css("#name"), " Jr"), chromedp.Click(x(`//button[normalize-space()='Save']`)),
		chromedp.WaitVisible(x(`//h1[normalize-space()='Sign in' or normalize-space()='Signed out']`)))
	if u, err := e.svc.User(ctx, chat.Principal{App: e.app}, "dave"); err != nil || u.Name != "Dave" {
		t.Errorf("after a post in an idle session, dave is %q (%v), want unchanged", u.Name, err)
	}

	mu.Lock()
	defer mu.Unlock()
	after := slices.DeleteFunc(slices.Clone(problems[before:]), func(p string) bool {
		return strings.Contains(p, "status of 401") && strings.HasSuffix(p, "/console/users/dave")
	})
	problems = append(problems[:before], after...)
	for _, p := range problems {
		t.Errorf("browser reported: %s", p)
	}
	for _, v := range csp {
		if !strings.Contains(v, "script-src 'self'") {
			t.Errorf("a response's Content-Security-Policy: %s", v)
		}
	}
	if len(csp) == 0 {
		t.Errorf("saw no document responses")
	}
}

// call runs a protocol command as an action.
func call[P, R any](c cdp.Command[P, R], params P) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, c, params)
		return chromedp.Void{}, err
	}
}
