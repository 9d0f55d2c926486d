package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/agent"
	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/realtime"
)

// agentBackends is backends with agentEnv.
func agentBackends(t *testing.T, f func(t *testing.T, e *env)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			f(t, agentEnv(t, b))
		})
	}
}

// agentEnv is an env whose server calls loopback agents, with this node's agent workers
// running on short timeouts: an agent's timeoutSeconds counts units of 100 ms here.
func agentEnv(t *testing.T, backend string) *env {
	e := newEnvHub(t, backend, chat.Config{WebhookAllowPrivate: true}, httpapi.Options{}, &realtime.HubOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	w := agent.New(e.svc, agent.Config{AllowPrivate: true, Poll: 50 * time.Millisecond, Backoff: 20 * time.Millisecond,
		Throttle: 40 * time.Millisecond, TimeoutUnit: 100 * time.Millisecond, StreamDeadline: 10 * time.Second, TypingEvery: time.Second})
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done }) // before the service and database close
	return e
}

// fakeAgent is a local agent endpoint: it records the calls and answers with handle.
type fakeAgent struct {
	srv    *httptest.Server
	calls  atomic.Int32
	mu     sync.Mutex
	bodies []map[string]any
	heads  []http.Header
}

func newFakeAgent(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeAgent {
	f := &fakeAgent{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(f.calls.Add(1))
		var b map[string]any
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &b)
		f.mu.Lock()
		f.bodies, f.heads = append(f.bodies, b), append(f.heads, r.Header.Clone())
		f.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAgent) body(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

func answerJSON(v string) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, v)
	}
}

func (e *env) mustAgent(uid string, f *fakeAgent, timeout int) {
	e.t.Helper()
	_, err := e.c.CreateAgent(e.ctx(), client.AgentRequest{UID: &uid, Name: ptr("Bot " + uid),
		IntegrationMeta: &client.AgentMeta{URL: f.srv.URL + "/agent", Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		TimeoutSeconds:  &timeout, HistoryLength: ptr(5)})
	if err != nil {
		e.t.Fatalf("create agent %s: %v", uid, err)
	}
}

// botMsg is a message the bot sent, as stored.
type botMsg struct {
	ID       int64
	Receiver string
	ParentID int64
	Text     string
	Error    string // data.metadata.agentError.code
}

// botMessages lists the bot's text messages, in order.
func (e *env) botMessages(bot string) []botMsg {
	e.t.Helper()
	rows, err := e.raw.Query(`SELECT id, receiver, parent_id, data FROM messages WHERE sender = '` + bot + `' AND category = 'message' ORDER BY id`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []botMsg
	for rows.Next() {
		var m botMsg
		var data string
		if err := rows.Scan(&m.ID, &m.Receiver, &m.ParentID, &data); err != nil {
			e.t.Fatal(err)
		}
		var d struct {
			Text     string `json:"text"`
			Metadata struct {
				AgentError struct {
					Code string `json:"code"`
				} `json:"agentError"`
			} `json:"metadata"`
		}
		json.Unmarshal([]byte(data), &d)
		m.Text, m.Error = d.Text, d.Metadata.AgentError.Code
		out = append(out, m)
	}
	return out
}

// waitBot waits until the bot's messages satisfy done (at most 10 s) and returns them.
func (e *env) waitBot(bot string, done func([]botMsg) bool) []botMsg {
	e.t.Helper()
	deadline := time.Now().Add(loadedWait)
	for {
		ms := e.botMessages(bot)
		if done(ms) {
			return ms
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the bot %s: %+v", bot, ms)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) jobsLeft() int { return e.count(`SELECT count(*) FROM agent_jobs`) }

func text(to, typ, s string) client.SendMessageRequest {
	return client.SendMessageRequest{Receiver: to, ReceiverType: typ, Category: "message", Type: "text", Data: map[string]any{"text": s}}
}

func TestAgentAnswers(t *testing.T) {
	agentBackends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")

		t.Run("one-to-one, plain answer, with history", func(t *testing.T) {
			f := newFakeAgent(t, answerJSON(`{"text": "Hello Alice"}`))
			e.mustAgent("plain", f, 10)
			e.mustText("alice", "plain", "first")
			e.waitBot("plain", func(ms []botMsg) bool { return len(ms) == 1 })
			e.mustText("alice", "plain", "second")
			ms := e.waitBot("plain", func(ms []botMsg) bool { return len(ms) == 2 })
			if ms[1].Text != "Hello Alice" || ms[1].Receiver != "alice" || ms[1].Error != "" {
				t.Errorf("the answer: %+v", ms[1])
			}
			b := f.body(1)
			msg, _ := b["message"].(map[string]any)
			hist, _ := b["history"].([]any)
			if msg["text"] != "second" || msg["sender"] != "alice" || len(hist) != 2 {
				t.Fatalf("the request: %v", b)
			}
			if h0 := hist[0].(map[string]any); h0["text"] != "first" || h0["role"] != "user" {
				t.Errorf("history[0]: %v", h0)
			}
			if h1 := hist[1].(map[string]any); h1["text"] != "Hello Alice" || h1["role"] != "assistant" {
				t.Errorf("history[1]: %v", h1)
			}
			if conv := b["conversation"].(map[string]any); conv["type"] != "user" || conv["with"] != "alice" {
				t.Errorf("conversation: %v", conv)
			}
			if got := f.heads[1].Get("Authorization"); got != "Bearer s3cret" {
				t.Errorf("the agent's header: %q", got)
			}
			// The bot's own messages woke nobody: two calls, no job left.
			time.Sleep(150 * time.Millisecond)
			if f.calls.Load() != 2 || e.jobsLeft() != 0 {
				t.Errorf("calls %d, jobs left %d", f.calls.Load(), e.jobsLeft())
			}
			// The answer reads as any message does.
			m, err := e.c.OnBehalfOf("alice").GetMessage(e.ctx(), fmt.Sprint(ms[1].ID))
			if err != nil || m.Sender != "plain" || m.Data.Text != "Hello Alice" {
				t.Errorf("GET the answer: %+v %v", m, err)
			}
		})

		t.Run("group mention, in a thread too", func(t *testing.T) {
			f := newFakeAgent(t, answerJSON(`{"choices": [{"message": {"role": "assistant", "content": "At your service"}}]}`))
			e.mustAgent("grp", f, 10)
			e.mustUser("bob", "Bob")
			e.mustGroup("g", "alice", "bob", "grp")
			if _, err := e.c.OnBehalfOf("bob").SendMessage(e.ctx(), text("g", "group", "no mention here")); err != nil {
				t.Fatal(err)
			}
			top, err := e.c.OnBehalfOf("alice").SendMessage(e.ctx(), text("g", "group", "<@uid:grp> help please"))
			if err != nil {
				t.Fatal(err)
			}
			ms := e.waitBot("grp", func(ms []botMsg) bool { return len(ms) == 1 })
			if ms[0].Receiver != "g" || ms[0].ParentID != 0 || ms[0].Text != "At your service" {
				t.Errorf("the answer: %+v", ms[0])
			}
			if _, err := e.c.OnBehalfOf("bob").SendThreadMessage(e.ctx(), top.ID, text("g", "group", "and <@uid:grp> here?")); err != nil {
				t.Fatal(err)
			}
			ms = e.waitBot("grp", func(ms []botMsg) bool { return len(ms) == 2 })
			if fmt.Sprint(ms[1].ParentID) != top.ID || ms[1].Receiver != "g" {
				t.Errorf("the thread answer: %+v", ms[1])
			}
			if conv := f.body(1)["conversation"].(map[string]any); conv["guid"] != "g" || conv["parentId"] != top.ID {
				t.Errorf("conversation: %v", conv)
			}
			// Mentioned in a group it is not a member of: not called.
			e.mustGroup("g2", "alice", "bob")
			if _, err := e.c.OnBehalfOf("bob").SendMessage(e.ctx(), text("g2", "group", "<@uid:grp> are you there?")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "both jobs done", func() bool { return e.jobsLeft() == 0 })
			if n := f.calls.Load(); n != 2 || len(e.botMessages("grp")) != 2 {
				t.Errorf("calls: %d", n)
			}
		})

		t.Run("500 then success: retried", func(t *testing.T) {
			f := newFakeAgent(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					w.WriteHeader(500)
					return
				}
				answerJSON(`{"text": "second time lucky"}`)(w, r, n)
			})
			e.mustAgent("flaky", f, 10)
			e.mustText("alice", "flaky", "hi")
			ms := e.waitBot("flaky", func(ms []botMsg) bool { return len(ms) == 1 })
			if ms[0].Text != "second time lucky" || f.calls.Load() != 2 {
				t.Errorf("%+v after %d calls", ms[0], f.calls.Load())
			}
		})

		failures := []struct {
			name, code string
			calls      int32
			handle     func(w http.ResponseWriter, r *http.Request, n int)
		}{
			{"500 forever", "http_status", 3, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(503) }},
			{"404: not retried", "http_status", 1, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(404) }},
			{"garbage", "bad_answer", 1, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("\x00\x01 not json \xff")) }},
			{"wrong shape", "bad_answer", 1, answerJSON(`{"answer": 42}`)},
			{"text not a string", "bad_answer", 1, answerJSON(`{"text": ["a"]}`)},
			{"hangs", "timeout", 3, func(w http.ResponseWriter, r *http.Request, n int) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			}},
			{"garbage stream", "bad_answer", 1, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: <html>\n\n")
			}},
			{"stream error before any text", "agent_error", 1, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: {\"error\": \"model overloaded\"}\n\n")
			}},
		}
		for i, tt := range failures {
			t.Run(tt.name, func(t *testing.T) {
				f := newFakeAgent(t, tt.handle)
				uid := fmt.Sprintf("fail%d", i)
				e.mustAgent(uid, f, 2) // 200 ms
				start := time.Now()
				e.mustText("alice", uid, "hi")
				ms := e.waitBot(uid, func(ms []botMsg) bool { return len(ms) == 1 })
				if ms[0].Error != tt.code || !strings.Contains(ms[0].Text, "could not answer") || ms[0].Receiver != "alice" {
					t.Errorf("the failure note: %+v", ms[0])
				}
				if n := f.calls.Load(); n != tt.calls {
					t.Errorf("calls: %d, want %d", n, tt.calls)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("the failure took %s", d)
				}
				time.Sleep(100 * time.Millisecond)
				if len(e.botMessages(uid)) != 1 || e.jobsLeft() != 0 {
					t.Errorf("after the failure: %+v, jobs %d", e.botMessages(uid), e.jobsLeft())
				}
			})
		}

		t.Run("deleted during its call: no answer, no job", func(t *testing.T) {
			called, release := make(chan struct{}, 1), make(chan struct{})
			f := newFakeAgent(t, func(w http.ResponseWriter, r *http.Request, n int) {
				called <- struct{}{}
				<-release
				answerJSON(`{"text": "too late"}`)(w, r, n)
			})
			e.mustAgent("gone", f, 50)
			e.mustText("alice", "gone", "hi")
			select {
			case <-called:
			case <-time.After(loadedWait):
				t.Fatal("the agent was not called")
			}
			if _, err := e.c.DeleteAgent(e.ctx(), "gone"); err != nil {
				t.Fatal(err)
			}
			close(release)
			waitFor(t, "the job dropped", func() bool { return e.jobsLeft() == 0 })
			time.Sleep(100 * time.Millisecond)
			if ms := e.botMessages("gone"); len(ms) != 0 || e.jobsLeft() != 0 {
				t.Errorf("a deleted agent answered: %+v, jobs %d", ms, e.jobsLeft())
			}
		})

		t.Run("held by moderation: answered once approved", func(t *testing.T) {
			f := newFakeAgent(t, answerJSON(`{"text": "now I see it"}`))
			e.mustAgent("modbot", f, 10)
			e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"zork","name":"Z","conditions":[{"category":"word","value":["zorkmid"]}],"action":["blockMessage"]}`})
			held := e.sendText("alice", "modbot", "user", "one zorkmid please")
			if held.mod != "pending" {
				t.Fatalf("not held: %+v", held)
			}
			time.Sleep(200 * time.Millisecond)
			if f.calls.Load() != 0 {
				t.Fatal("the agent was called with a held message")
			}
			e.ok(request{method: "PATCH", path: "/v3/moderation/blocked-messages/" + held.id, body: `{"status":"approved"}`})
			ms := e.waitBot("modbot", func(ms []botMsg) bool { return len(ms) == 1 })
			if ms[0].Text != "now I see it" || f.body(0)["message"].(map[string]any)["text"] != "one zorkmid please" {
				t.Errorf("the answer %+v to %v", ms[0], f.body(0))
			}
		})

		t.Run("inactive agent: not called", func(t *testing.T) {
			f := newFakeAgent(t, answerJSON(`{"text": "no"}`))
			e.mustAgent("sleepy", f, 10)
			if _, err := e.c.UpdateAgent(e.ctx(), "sleepy", client.AgentRequest{IsActive: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			e.mustText("alice", "sleepy", "hi")
			time.Sleep(300 * time.Millisecond)
			if f.calls.Load() != 0 || len(e.botMessages("sleepy")) != 0 {
				t.Errorf("an inactive agent answered: %d calls", f.calls.Load())
			}
		})
	})
}

// streamChunks is what streamingAgent answers, 60 ms apart.
var streamChunks = []string{"Hel", "lo ", "wor", "ld", "!"}

// streamingAgent answers "Hello world!" as server-sent events, a chunk every 60 ms.
func streamingAgent(w http.ResponseWriter, r *http.Request, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	io.WriteString(w, ": keep-alive\n\n")
	fl.Flush()
	for _, c := range streamChunks {
		b, _ := json.Marshal(map[string]string{"delta": c})
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
		time.Sleep(60 * time.Millisecond)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// botOrder is the order of a streamed answer's frames on a socket of its conversation
// (docs/realtime.md, "Order"): the bot typing (repeated while it works), its message, its
// edits (typing repeats among them), then the typing ended.
var botOrder = regexp.MustCompile(`^(started )+message( started| edited)* ended$`)

// botFrames reads w's frames from bot until its typing ended, and names them in the order
// they came: started, message, edited, ended. Frames from others (the user's own message)
// are not the bot's to order.
func botFrames(t *testing.T, w *wsClient, bot string) []string {
	t.Helper()
	var got []string
	timeout := time.After(loadedWait)
	for {
		var f map[string]json.RawMessage
		select {
		case f = <-w.frams:
		case <-timeout:
			t.Fatalf("no typing ended from %s within %v: %v", bot, loadedWait, got)
		}
		if f == nil {
			t.Fatalf("socket closed: %v (%v)", got, <-w.err)
		}
		if str(f["sender"]) != bot {
			continue
		}
		body := string(f["body"])
		switch typ := str(f["type"]); {
		case typ == "typing_indicator" && strings.Contains(body, `"action":"started"`) && strings.Contains(body, `"uid":"`+bot+`"`):
			got = append(got, "started")
		case typ == "typing_indicator" && strings.Contains(body, `"action":"ended"`):
			return append(got, "ended")
		case typ == "message" && strings.Contains(body, `"action":"edited"`):
			got = append(got, "edited")
		case typ == "message":
			got = append(got, "message")
		default:
			got = append(got, typ+"?")
		}
	}
}

// checkStreamFrames asserts that alice's socket saw the bot's streamed answer ms[0] in
// order, edited as it grew, and each stored edit once.
func checkStreamFrames(t *testing.T, e *env, alice *wsClient, bot string, ms []botMsg) {
	t.Helper()
	got := botFrames(t, alice, bot)
	edits := strings.Count(strings.Join(got, " "), "edited")
	// Chunks 60 ms apart, edits at most every 40 ms: edited as it grew, however the chunks
	// happen to be read together on a loaded machine.
	if !botOrder.MatchString(strings.Join(got, " ")) || edits < 1 {
		t.Errorf("on the socket, in this order: %v", got)
	}
	stored := e.count(`SELECT count(*) FROM messages WHERE category = 'action' AND sender = $1 AND target_id = $2`, bot, ms[0].ID)
	if stored != edits || stored > len(streamChunks) {
		t.Errorf("one message, edited %d times as it grew (%d on the socket)", stored, edits)
	}
}

func TestAgentStream(t *testing.T) {
	agentBackends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		f := newFakeAgent(t, streamingAgent)
		e.mustAgent("streamer", f, 10)
		alice := e.connect("alice", "")
		e.mustText("alice", "streamer", "say hello")
		ms := e.waitBot("streamer", func(ms []botMsg) bool { return len(ms) == 1 && ms[0].Text == "Hello world!" })
		checkStreamFrames(t, e, alice, "streamer", ms)
		// The job is done after the typing ended: then one answer, and no job left.
		waitFor(t, "the job finished", func() bool { return e.jobsLeft() == 0 })
		if got := e.botMessages("streamer"); len(got) != 1 {
			t.Errorf("after the stream: %+v", got)
		}

		// A stream that breaks off: the message keeps what came, with a note; no retry.
		g := newFakeAgent(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"delta\": \"Half an ans\"}\n\n")
			w.(http.Flusher).Flush()
			select { // then silence, past the agent's timeout
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		e.mustAgent("cutoff", g, 2)
		e.mustText("alice", "cutoff", "go")
		ms = e.waitBot("cutoff", func(ms []botMsg) bool { return len(ms) == 1 && ms[0].Error != "" })
		if ms[0].Error != "timeout" || !strings.HasPrefix(ms[0].Text, "Half an ans") || !strings.Contains(ms[0].Text, "cut off") {
			t.Errorf("the cut answer: %+v", ms[0])
		}
		if g.calls.Load() != 1 {
			t.Errorf("a begun stream was retried: %d calls", g.calls.Load())
		}
	})
}

// TestAgentStreamAcrossNodes (issue 41): the bot answers on node A, alice's socket is on node
// B. Its typing, message, edits and typing ended reach her in the order they happened, as
// on the node that answers.
func TestAgentStreamAcrossNodes(t *testing.T) {
	t.Parallel()
	e := agentEnv(t, "postgres")
	b, _ := e.hubNode(chat.Config{})
	e.mustUser("alice", "Alice")
	e.mustAgent("streamer", newFakeAgent(t, streamingAgent), 10)
	alice := b.connect("alice", "")
	e.mustText("alice", "streamer", "say hello")
	ms := e.waitBot("streamer", func(ms []botMsg) bool { return len(ms) == 1 && ms[0].Text == "Hello world!" })
	checkStreamFrames(t, e, alice, "streamer", ms)
}

func TestAgentsCRUD(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		e.mustUser("alice", "Alice")
		// Create: a new bot user, and an existing user bound.
		a, err := e.c.CreateAgent(e.ctx(), client.AgentRequest{UID: ptr("Helper"), Name: ptr("Helper"), Icon: ptr("https://x.example/i.png"),
			IntegrationMeta: &client.AgentMeta{URL: "https://agents.example.com/helper", Headers: map[string]string{"Authorization": "Bearer t0p"}},
			Instruction:     ptr("Be brief."), MetaData: map[string]any{"team": "support"}})
		if err != nil {
			t.Fatal(err)
		}
		if a.UID != "helper" || !a.IsActive || a.IntegrationType != "agent" || a.HistoryLength != 20 || a.TimeoutSeconds != 30 ||
			a.IntegrationMeta.Headers["Authorization"] != "********" || a.IntegrationMeta.URL != "https://agents.example.com/helper" {
			t.Errorf("created: %+v", a)
		}
		if u, err := e.c.GetUser(e.ctx(), "helper"); err != nil || u.Name != "Helper" || u.Avatar != "https://x.example/i.png" {
			t.Errorf("the bot user: %+v %v", u, err)
		}
		if _, err := e.c.CreateAgent(e.ctx(), client.AgentRequest{UID: ptr("alice"), Name: ptr("Alice's bot"),
			IntegrationMeta: &client.AgentMeta{URL: "https://agents.example.com/a"}}); err != nil {
			t.Fatal(err)
		}
		if u, _ := e.c.GetUser(e.ctx(), "alice"); u.Name != "Alice" {
			t.Errorf("a bound user changed: %+v", u)
		}
		gen, err := e.c.CreateAgent(e.ctx(), client.AgentRequest{Name: ptr("Anon"), IntegrationMeta: &client.AgentMeta{URL: "https://agents.example.com/b"}})
		if err != nil || len(gen.UID) != 36 {
			t.Fatalf("a generated uid: %+v %v", gen, err)
		}
		list, err := e.c.ListAgents(e.ctx())
		if err != nil || len(list) != 3 {
			t.Fatalf("list: %d %v", len(list), err)
		}
		up, err := e.c.PatchAgent(e.ctx(), "helper", client.AgentRequest{Name: ptr("Helper 2"), TimeoutSeconds: ptr(120)})
		if err != nil || up.Name != "Helper 2" || up.TimeoutSeconds != 120 || up.IntegrationMeta.Headers["Authorization"] == "" {
			t.Errorf("patch: %+v %v", up, err)
		}
		up, err = e.c.UpdateAgent(e.ctx(), "helper", client.AgentRequest{IntegrationMeta: &client.AgentMeta{URL: "https://agents.example.com/v2", Headers: map[string]string{}}})
		if err != nil || up.IntegrationMeta.URL != "https://agents.example.com/v2" {
			t.Errorf("put: %+v %v", up, err)
		}
		// The sealed headers are never in the database in clear.
		if n := e.count(`SELECT count(*) FROM agents WHERE header_names LIKE '%t0p%'`); n != 0 {
			t.Error("a header value stored in clear")
		}

		long := strings.Repeat("x", 101)
		agentURL := `"integrationMeta":{"url":"https://agents.example.com/x"}`
		refusals := []struct {
			name, method, path, body string
			key                      string // "" = fullAccess
			status                   int
			code                     string
		}{
			{"no name", "POST", "/v3/ai-agents/agents", `{` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"no url", "POST", "/v3/ai-agents/agents", `{"name":"B"}`, "", 400, "ERR_BAD_REQUEST"},
			{"bad url", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"not a url"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"http url", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"http://agents.example.com/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"private address", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://192.168.1.10/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"loopback", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://127.0.0.1:8443/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"IPv4-compatible loopback", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://[::127.0.0.1]:8443/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"short loopback", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://127.1:8443/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"hex loopback", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://0x7f000001:8443/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"decimal loopback", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://2130706433:8443/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"octal loopback", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://0177.0.0.1:8443/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"llm", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationType":"llm",` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"tools", "POST", "/v3/ai-agents/agents", `{"name":"B","tools":["t"],` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"long name", "POST", "/v3/ai-agents/agents", `{"name":"` + long + `",` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"bad uid", "POST", "/v3/ai-agents/agents", `{"uid":"a b","name":"B",` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"long instruction", "POST", "/v3/ai-agents/agents", `{"name":"B","instruction":"` + strings.Repeat("i", 10001) + `",` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"oversized metaData", "POST", "/v3/ai-agents/agents", `{"name":"B","metaData":{"k":"` + strings.Repeat("m", 6000) + `"},` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"metaData not an object", "POST", "/v3/ai-agents/agents", `{"name":"B","metaData":[1],` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"timeout too long", "POST", "/v3/ai-agents/agents", `{"name":"B","timeoutSeconds":121,` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"history too long", "POST", "/v3/ai-agents/agents", `{"name":"B","historyLength":101,` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"timeout a string", "POST", "/v3/ai-agents/agents", `{"name":"B","timeoutSeconds":"5",` + agentURL + `}`, "", 400, "ERR_BAD_REQUEST"},
			{"reserved header", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://agents.example.com/x","headers":{"Host":"x"}}}`, "", 400, "ERR_BAD_REQUEST"},
			{"header with CRLF", "POST", "/v3/ai-agents/agents", `{"name":"B","integrationMeta":{"url":"https://agents.example.com/x","headers":{"X-K":"a\r\nb"}}}`, "", 400, "ERR_BAD_REQUEST"},
			{"malformed JSON", "POST", "/v3/ai-agents/agents", `{"name":`, "", 400, "ERR_BAD_REQUEST"},
			{"duplicate", "POST", "/v3/ai-agents/agents", `{"uid":"helper","name":"B",` + agentURL + `}`, "", 409, "ERR_AGENT_CREATION_FAILED"},
			{"authOnly key", "POST", "/v3/ai-agents/agents", `{"uid":"k","name":"B",` + agentURL + `}`, e.authKey, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key lists", "GET", "/v3/ai-agents/agents", ``, e.authKey, 403, "AUTH_ERR_NO_ACCESS"},
			{"unknown uid", "GET", "/v3/ai-agents/agents/nobody", ``, "", 404, "ERR_AGENT_NOT_FOUND"},
			{"malformed uid", "GET", "/v3/ai-agents/agents/a%20b", ``, "", 404, "ERR_AGENT_NOT_FOUND"},
			{"a user, no agent", "GET", "/v3/ai-agents/agents/bob", ``, "", 404, "ERR_AGENT_NOT_FOUND"},
			{"update unknown", "PUT", "/v3/ai-agents/agents/nobody", `{"name":"N"}`, "", 404, "ERR_AGENT_NOT_FOUND"},
			{"update bad url", "PUT", "/v3/ai-agents/agents/helper", `{"integrationMeta":{"url":"https://10.0.0.1/x"}}`, "", 400, "ERR_BAD_REQUEST"},
			{"update empty name", "PATCH", "/v3/ai-agents/agents/helper", `{"name":""}`, "", 400, "ERR_BAD_REQUEST"},
			{"update uid", "PUT", "/v3/ai-agents/agents/helper", `{"uid":"other"}`, "", 400, "ERR_BAD_REQUEST"},
			{"delete unknown", "DELETE", "/v3/ai-agents/agents/nobody", ``, "", 404, "ERR_AGENT_NOT_FOUND"},
			{"tools: not served", "GET", "/v3/ai-agents/tools", ``, "", 501, "ERR_NOT_IMPLEMENTED"},
			{"agent builder: not served", "POST", "/v3.0/ai-agents/agent-builder/agents", `{}`, "", 501, "ERR_NOT_IMPLEMENTED"},
			{"wrong method", "POST", "/v3/ai-agents/agents/helper", `{}`, "", 405, "ERR_METHOD_NOT_ALLOWED"},
		}
		e.mustUser("bob", "Bob")
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				key := tt.key
				if key == "" {
					key = e.full
				}
				before := e.snapshot()
				agents := e.count(`SELECT count(*) FROM agents`)
				r := e.do(request{method: tt.method, path: tt.path, headers: map[string]string{"apikey": key}, body: tt.body})
				if r.status != tt.status || r.code != tt.code {
					t.Fatalf("%d %s, want %d %s: %s", r.status, r.code, tt.status, tt.code, r.body)
				}
				if e.snapshot() != before || e.count(`SELECT count(*) FROM agents`) != agents {
					t.Error("a refused request wrote")
				}
			})
		}
		ack, err := e.c.DeleteAgent(e.ctx(), "helper")
		if err != nil || !ack.Success {
			t.Fatalf("delete: %+v %v", ack, err)
		}
		var ce *client.Error
		if _, err := e.c.GetAgent(e.ctx(), "helper"); !errors.As(err, &ce) || ce.Code != "ERR_AGENT_NOT_FOUND" {
			t.Errorf("after delete: %v", err)
		}
		if _, err := e.c.GetUser(e.ctx(), "helper"); err != nil {
			t.Errorf("the bot user went with the agent: %v", err)
		}
	})
}

// TestAgentTakeover: a node that stops mid-answer leaves its job leased, with the bot's
// message recorded; the node that takes the job over after the lease ends the message with
// an interruption note, and never posts a second answer.
func TestAgentTakeover(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, b, chat.Config{WebhookAllowPrivate: true})
			e.mustUser("alice", "Alice")
			f := newFakeAgent(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: {\"delta\": \"Partial\"}\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
			e.mustAgent("crashy", f, 50)
			start := func(node string) (stop func()) {
				ctx, cancel := context.WithCancel(context.Background())
				w := agent.New(e.svc, agent.Config{Node: node, AllowPrivate: true, Poll: 50 * time.Millisecond, TimeoutUnit: 100 * time.Millisecond})
				done := make(chan struct{})
				go func() { w.Run(ctx); close(done) }()
				return func() { cancel(); <-done }
			}
			stop1 := start("node-1")
			e.mustText("alice", "crashy", "go")
			e.waitBot("crashy", func(ms []botMsg) bool { return len(ms) == 1 })
			waitFor(t, "the reply begun", func() bool { return e.count(`SELECT count(*) FROM agent_jobs WHERE reply_id > 0`) == 1 })
			stop1() // node-1 dies mid-answer: its job stays, leased
			if n := e.count(`SELECT count(*) FROM agent_jobs WHERE leased_by = 'node-1' AND reply_id > 0`); n != 1 {
				t.Fatalf("the job after node-1 stopped: %d", n)
			}
			if _, err := e.raw.Exec(`UPDATE agent_jobs SET lease_until = 0`); err != nil { // the lease ends
				t.Fatal(err)
			}
			stop2 := start("node-2")
			defer stop2()
			ms := e.waitBot("crashy", func(ms []botMsg) bool { return len(ms) == 1 && ms[0].Error != "" })
			if ms[0].Error != "interrupted" || !strings.HasPrefix(ms[0].Text, "Partial") {
				t.Errorf("the taken-over answer: %+v", ms[0])
			}
			waitFor(t, "the job done", func() bool { return e.jobsLeft() == 0 })
			if f.calls.Load() != 1 {
				t.Errorf("jobs left %d, calls %d", e.jobsLeft(), f.calls.Load())
			}
		})
	}
}
