package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/httpapi"
)

// callBackends runs f once per database with a clock the test moves (calls count minutes).
func callBackends(t *testing.T, f func(t *testing.T, e *env, tick func(seconds int64))) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			var now atomic.Int64
			now.Store(testClock.Unix())
			e := newEnvWith(t, b, chat.Config{Now: func() time.Time { return time.Unix(now.Load(), 0) }}, httpapi.Options{})
			f(t, e, func(s int64) { now.Add(s) })
		})
	}
}

// callMsg is a call message as an answer shows it.
type callMsg struct {
	Category string
	Type     string
	Sender   string
	Data     struct {
		Action   string
		Entities struct {
			By, For struct{ Entity map[string]any }
			On      struct {
				EntityType string
				Entity     struct {
					SessionID string `json:"sessionid"`
					Status    string
					Type      string
					JoinedAt  int64
					Data      struct {
						Entities struct {
							Sender, Receiver struct{ Entity map[string]any }
						}
					}
				}
			}
		}
	}
}

func (e *env) callDo(r request, wantAction string) callMsg {
	e.t.Helper()
	res := e.do(r)
	var out struct{ Data callMsg }
	if res.status != 200 || json.Unmarshal(res.body, &out) != nil {
		e.t.Fatalf("%s %s: %d %s", r.method, r.path, res.status, res.body)
	}
	if m := out.Data; m.Category != "call" || m.Data.Action != wantAction || m.Data.Entities.On.EntityType != "call" || m.Data.Entities.On.Entity.SessionID == "" {
		e.t.Fatalf("%s %s: not a call message with action %s: %s", r.method, r.path, wantAction, res.body)
	}
	return out.Data
}

func (e *env) callTo(from, to, receiverType, typ string) string {
	e.t.Helper()
	m := e.callDo(request{method: "POST", path: "/v3/calls", headers: obo(from),
		body: fmt.Sprintf(`{"receiver":%q,"receiverType":%q,"type":%q,"category":"call","status":"initiated"}`, to, receiverType, typ)}, "initiated")
	return m.Data.Entities.On.Entity.SessionID
}

func (e *env) setCall(uid, sid, status string) callMsg {
	e.t.Helper()
	return e.callDo(request{method: "PUT", path: "/v3/calls/" + sid, headers: obo(uid), body: `{"status":"` + status + `"}`}, status)
}

var sessionIDShape = regexp.MustCompile(`^n1\.[0-9]{10}[0-9a-f]{32}$`)

func TestCalls(t *testing.T) {
	callBackends(t, func(t *testing.T, e *env, tick func(int64)) {
		for _, u := range []string{"ann", "bob", "cat", "dan"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		annTok, danTok := e.mustToken("ann"), e.mustToken("dan")
		token := func(tok string) map[string]string { return map[string]string{"apikey": "", "authToken": tok} }

		// A one-to-one call, as the SDK makes it (an auth token), answered, switched to video,
		// ended.
		init := e.callDo(request{method: "POST", path: "/v3/calls", headers: token(annTok),
			body: `{"receiver":"BOB","receiverType":"user","type":"audio","category":"call","status":"initiated","data":{}}`}, "initiated")
		one := init.Data.Entities.On.Entity.SessionID
		if !sessionIDShape.MatchString(one) || init.Sender != "ann" || init.Type != "audio" || init.Data.Entities.For.Entity["uid"] != "bob" {
			t.Fatalf("initiated: %+v", init)
		}
		tick(4)
		// bob answers: the message goes to ann; the call's parties stay ann → bob.
		if m := e.setCall("bob", one, "ongoing"); m.Data.Entities.On.Entity.Status != "ongoing" || m.Data.Entities.On.Entity.JoinedAt == 0 ||
			m.Data.Entities.For.Entity["uid"] != "ann" || m.Data.Entities.On.Entity.Data.Entities.Sender.Entity["uid"] != "ann" ||
			m.Data.Entities.On.Entity.Data.Entities.Receiver.Entity["uid"] != "bob" {
			t.Fatalf("accepted: %+v", m)
		}
		tick(10)
		got := e.ok(request{method: "PATCH", path: "/v3/calls/" + one + "/type", headers: token(annTok), body: `{"type":"video"}`})
		if got["type"] != "video" || got["totalAudioMinutes"] != 10.0/60 {
			t.Fatalf("switched: %v", got)
		}
		tick(5)
		if m := e.setCall("bob", one, "ended"); m.Type != "video" {
			t.Fatalf("ended: %+v", m)
		}
		got = e.ok(request{method: "GET", path: "/v3/calls/" + one})
		if got["status"] != "ended" || got["totalAudioMinutes"] != 10.0/60 || got["totalVideoMinutes"] != 5.0/60 || got["totalDuration"] != "00:00:15" ||
			got["totalDurationInMinutes"] != 15.0/60 || got["totalParticipants"] != 2.0 || got["hasRecording"] != false ||
			got["startedAt"] != float64(testClock.Unix()+4) || got["endedAt"] != float64(testClock.Unix()+19) || got["initiator"] != "ann" {
			t.Fatalf("record: %v", got)
		}
		for _, p := range got["participants"].([]any) {
			p := p.(map[string]any)
			if p["state"] != "ended" || p["isJoined"] != true || p["totalDuration"] != 15.0/60 || p["leftAt"] == nil {
				t.Fatalf("participant: %v", p)
			}
		}
		if n := e.count(`SELECT COUNT(*) FROM messages WHERE category = 'call'`); n != 3 {
			t.Fatalf("%d call messages, want 3", n)
		}
		if l := e.messages(request{method: "GET", path: "/v3/users/ann/messages?categories=call", headers: obo("bob")}); len(l.Data) != 3 {
			t.Fatalf("bob's history with ann has %d call messages", len(l.Data))
		}

		// A group call: cat calls, ann answers (cat joins with her), bob declines, ann leaves,
		// then cat: the call ends with the last one.
		grp := e.callTo("cat", "g", "group", "video")
		tick(2)
		e.setCall("ann", grp, "ongoing")
		e.setCall("bob", grp, "rejected")
		tick(30)
		e.setCall("ann", grp, "ended")
		if got := e.ok(request{method: "GET", path: "/v3/calls/" + grp}); got["status"] != "ongoing" || got["endedAt"] != nil || got["totalVideoMinutes"] != 0.5 {
			t.Fatalf("after ann left: %v", got)
		}
		tick(30)
		e.setCall("cat", grp, "ended")
		got = e.ok(request{method: "GET", path: "/v3/calls/" + grp})
		states := map[string]string{}
		for _, p := range got["participants"].([]any) {
			p := p.(map[string]any)
			states[p["uid"].(string)] = p["state"].(string)
		}
		if got["status"] != "ended" || got["totalVideoMinutes"] != 1.0 || got["totalParticipants"] != 2.0 ||
			fmt.Sprint(states) != "map[ann:ended bob:rejected cat:ended]" {
			t.Fatalf("group record: %v", got)
		}

		// GET /stats adds up the participants' minutes, rounded up: audio 10 s each of ann and
		// bob; video 5 s each, then ann 30 s and cat 60 s in the group call.
		stats := e.ok(request{method: "GET", path: fmt.Sprintf("/v3/stats?fromDate=%d&toDate=%d", testClock.Unix()-3600, testClock.Unix()+3600)})
		if m := stats["metrics"].(map[string]any); m["audio_minutes"] != 1.0 || m["video_minutes"] != 2.0 || m["recorded_minutes"] != 0.0 {
			t.Fatalf("stats: %v", stats)
		}

		// Cancelled, and one left ringing.
		cancelled := e.callTo("ann", "cat", "user", "audio")
		e.setCall("ann", cancelled, "cancelled")
		tick(1) // the list orders by initiatedAt
		ringing := e.callTo("ann", "cat", "user", "audio")

		// Transcriptions: attached by the app, listed, embedded.
		tr := e.ok(request{method: "POST", path: "/v3/calls/" + one + "/transcriptions",
			body: fmt.Sprintf(`{"startTime":%d,"endTime":%d,"transcriptUrl":"https://transcripts.example/one.json"}`, testClock.Unix()+4, testClock.Unix()+19)})
		if tr["roomName"] != one || tr["transcriptDate"] != time.Unix(testClock.Unix()+4, 0).UTC().Format("2006-01-02T15:04:05.000Z") || tr["tid"] == "" {
			t.Fatalf("transcription: %v", tr)
		}
		for i := 0; i < 6; i++ {
			e.ok(request{method: "POST", path: "/v3/calls/" + one + "/transcriptions",
				body: fmt.Sprintf(`{"roomName":"r%d","startTime":1,"endTime":2,"transcriptUrl":"https://transcripts.example/%d.json"}`, i, i)})
		}
		got = e.ok(request{method: "GET", path: "/v3/calls/" + one})
		if ts := got["transcriptions"].([]any); got["hasTranscription"] != true || len(ts) != 5 || ts[0].(map[string]any)["roomName"] != "r5" {
			t.Fatalf("embedded transcriptions: %v", got["transcriptions"])
		}
		l, meta := e.list(request{method: "GET", path: "/v3/calls/" + one + "/transcriptions?perPage=3&page=3", headers: token(annTok)})
		if len(l) != 1 || l[0]["roomName"] != "r5" || meta["pagination"].(map[string]any)["total"] != 7.0 {
			t.Fatalf("transcriptions page 3: %v %v", l, meta)
		}

		// Filters.
		sessions := func(r request) string {
			t.Helper()
			l, _ := e.list(r)
			var ids []string
			for _, c := range l {
				switch c["sessionId"] {
				case one:
					ids = append(ids, "one")
				case grp:
					ids = append(ids, "grp")
				case cancelled:
					ids = append(ids, "cancelled")
				case ringing:
					ids = append(ids, "ringing")
				}
			}
			return strings.Join(ids, ",")
		}
		for _, tc := range []struct{ query, want string }{
			{"", "ringing,cancelled,grp,one"},
			{"?status=ended", "grp,one"},
			{"?status=initiated", "ringing"},
			{"?type=video", "grp,one"},
			{"?type=audio&receiverType=user", "ringing,cancelled"},
			{"?receiverType=group", "grp"},
			{"?mode=call&participantsCount=2", "grp,one"},
			{"?participantsCount=0", "ringing,cancelled"},
			{"?hasTranscription=true", "one"},
			{"?hasTranscription=false", "ringing,cancelled,grp"},
			{"?hasRecording=true", ""},
			{"?hasRecording=false", "ringing,cancelled,grp,one"},
			{"?mode=meet", ""},
			{"?uid=BOB", "grp,one"},
			{"?uid=dan", ""},
			{fmt.Sprintf("?startedAt=%d", testClock.Unix()+5), "grp"},
			{fmt.Sprintf("?endedAt=%d", testClock.Unix()+19), "one"},
			{fmt.Sprintf("?endedAt=%d", testClock.Unix()+81), "cancelled,grp,one"},
			{"?perPage=2&page=2", "grp,one"},
		} {
			if got := sessions(request{method: "GET", path: "/v3/calls" + tc.query}); got != tc.want {
				t.Errorf("GET /calls%s = %s, want %s", tc.query, got, tc.want)
			}
		}
		// An acting user sees only its calls.
		if got := sessions(request{method: "GET", path: "/v3/calls", headers: obo("bob")}); got != "grp,one" {
			t.Errorf("bob's calls: %s", got)
		}
		if got := sessions(request{method: "GET", path: "/v3/calls", headers: token(danTok)}); got != "" {
			t.Errorf("dan's calls: %s", got)
		}
		if r := e.do(request{method: "GET", path: "/v3/calls/" + one, headers: token(danTok)}); r.status != 404 || r.code != "ERR_CALL_SESSION_NOT_FOUND" {
			t.Errorf("dan reads ann's call: %d %s", r.status, r.body)
		}

		// Refusals write nothing: a row per code with its status, and what only HTTP decides
		// (bodies, query parameters, keys). Who may change a call in which state is chat's
		// TestCallRules, against the store without HTTP.
		before := e.snapshot()
		long := "https://t.example/" + strings.Repeat("a", 2048)
		for _, tc := range []struct {
			name   string
			r      request
			status int
			code   string
		}{
			{"unknown session", request{method: "GET", path: "/v3/calls/nope"}, 404, "ERR_CALL_SESSION_NOT_FOUND"},
			{"startedAt not a number", request{method: "GET", path: "/v3/calls?startedAt=yesterday"}, 400, "ERR_BAD_REQUEST"},
			{"endedAt negative", request{method: "GET", path: "/v3/calls?endedAt=-5"}, 400, "ERR_BAD_REQUEST"},
			{"unknown status", request{method: "GET", path: "/v3/calls?status=accepted"}, 400, "ERR_BAD_REQUEST"},
			{"unknown type", request{method: "GET", path: "/v3/calls?type=screen"}, 400, "ERR_BAD_REQUEST"},
			{"unknown mode", request{method: "GET", path: "/v3/calls?mode=webinar"}, 400, "ERR_BAD_REQUEST"},
			{"unknown receiverType", request{method: "GET", path: "/v3/calls?receiverType=bot"}, 400, "ERR_BAD_REQUEST"},
			{"participantsCount negative", request{method: "GET", path: "/v3/calls?participantsCount=-1"}, 400, "ERR_BAD_REQUEST"},
			{"hasRecording not a boolean", request{method: "GET", path: "/v3/calls?hasRecording=maybe"}, 400, "ERR_BAD_REQUEST"},
			{"uid not a uid", request{method: "GET", path: "/v3/calls?uid=a%20b"}, 400, "ERR_BAD_REQUEST"},
			{"perPage over 1000", request{method: "GET", path: "/v3/calls?perPage=1001"}, 400, "ERR_BAD_REQUEST"},
			{"transcriptions perPage over 1000", request{method: "GET", path: "/v3/calls/" + one + "/transcriptions?perPage=1001"}, 400, "ERR_BAD_REQUEST"},
			{"page 0", request{method: "GET", path: "/v3/calls?page=0"}, 400, "ERR_BAD_REQUEST"},
			{"change an ended call", request{method: "PUT", path: "/v3/calls/" + one, headers: obo("ann"), body: `{"status":"ongoing"}`}, 409, "ERR_CALL_TERMINATED"},
			{"a stranger answers", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("dan"), body: `{"status":"ongoing"}`}, 403, "ERR_CALL_NOT_A_PART"},
			{"the initiator answers", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("ann"), body: `{"status":"ongoing"}`}, 409, "ERR_CALL_INVALID_STATUS"},
			{"end before it started", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("cat"), body: `{"status":"ended"}`}, 409, "ERR_CALL_NOT_STARTED"},
			{"unknown status", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("cat"), body: `{"status":"accepted"}`}, 400, "ERR_BAD_REQUEST"},
			{"initiated again", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("cat"), body: `{"status":"initiated"}`}, 400, "ERR_BAD_REQUEST"},
			{"no status", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("cat"), body: `{}`}, 400, "ERR_BAD_REQUEST"},
			{"malformed body", request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("cat"), body: `{"status":`}, 400, "ERR_BAD_REQUEST"},
			{"change without onBehalfOf", request{method: "PUT", path: "/v3/calls/" + ringing, body: `{"status":"ongoing"}`}, 400, "ERR_BAD_REQUEST"},
			{"switch to an unknown type", request{method: "PATCH", path: "/v3/calls/" + ringing + "/type", headers: obo("ann"), body: `{"type":"hd"}`}, 400, "ERR_BAD_REQUEST"},
			{"call oneself", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiver":"ann","receiverType":"user","type":"audio"}`}, 400, "ERR_CALLING_SELF"},
			{"unknown call type", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"user","type":"screen"}`}, 400, "ERR_BAD_REQUEST"},
			{"start in another status", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"user","type":"audio","status":"ongoing"}`}, 400, "ERR_BAD_REQUEST"},
			{"no receiver", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiverType":"user","type":"audio"}`}, 400, "ERR_BAD_REQUEST"},
			{"unknown receiverType", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"bot","type":"audio"}`}, 400, "ERR_BAD_REQUEST"},
			{"unknown receiver", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiver":"ghost","receiverType":"user","type":"audio"}`}, 404, "ERR_UID_NOT_FOUND"},
			{"unknown group", request{method: "POST", path: "/v3/calls", headers: obo("ann"), body: `{"receiver":"nope","receiverType":"group","type":"audio"}`}, 404, "ERR_GUID_NOT_FOUND"},
			{"a group one is not in", request{method: "POST", path: "/v3/calls", headers: token(danTok), body: `{"receiver":"g","receiverType":"group","type":"audio"}`}, 403, "ERR_NOT_A_MEMBER"},
			{"a call message through POST /messages", request{method: "POST", path: "/v3/messages", headers: obo("ann"), body: `{"receiver":"bob","receiverType":"user","category":"call","type":"audio","data":{"action":"initiated"}}`}, 400, "ERR_INVALID_MESSAGE_CATEGORY"},
			{"initiate without onBehalfOf", request{method: "POST", path: "/v3/calls", body: `{"receiver":"bob","receiverType":"user","type":"audio"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript over http", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"startTime":1,"endTime":2,"transcriptUrl":"http://t.example/x"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript URL with credentials", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"startTime":1,"endTime":2,"transcriptUrl":"https://u:p@t.example/x"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript URL not a URL", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"startTime":1,"endTime":2,"transcriptUrl":"https//%zz"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript URL too long", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"startTime":1,"endTime":2,"transcriptUrl":"` + long + `"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript without URL", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"startTime":1,"endTime":2}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript ends before it starts", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"startTime":5,"endTime":2,"transcriptUrl":"https://t.example/x"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript room name too long", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", body: `{"roomName":"` + strings.Repeat("r", 256) + `","startTime":1,"endTime":2,"transcriptUrl":"https://t.example/x"}`}, 400, "ERR_BAD_REQUEST"},
			{"transcript of an unknown session", request{method: "POST", path: "/v3/calls/nope/transcriptions", body: `{"startTime":1,"endTime":2,"transcriptUrl":"https://t.example/x"}`}, 404, "ERR_CALL_SESSION_NOT_FOUND"},
			{"transcript with a token", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", headers: token(annTok), body: `{"startTime":1,"endTime":2,"transcriptUrl":"https://t.example/x"}`}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key attaches", request{method: "POST", path: "/v3/calls/" + one + "/transcriptions", headers: map[string]string{"apikey": e.authKey}, body: `{"startTime":1,"endTime":2,"transcriptUrl":"https://t.example/x"}`}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key lists", request{method: "GET", path: "/v3/calls", headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key reads", request{method: "GET", path: "/v3/calls/" + one, headers: map[string]string{"apikey": e.authKey}}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key initiates", request{method: "POST", path: "/v3/calls", headers: map[string]string{"apikey": e.authKey, "onBehalfOf": "ann"}, body: `{"receiver":"bob","receiverType":"user","type":"audio"}`}, 403, "AUTH_ERR_NO_ACCESS"},
			{"authOnly key changes", request{method: "PUT", path: "/v3/calls/" + ringing, headers: map[string]string{"apikey": e.authKey, "onBehalfOf": "cat"}, body: `{"status":"rejected"}`}, 403, "AUTH_ERR_NO_ACCESS"},
			{"session id too long", request{method: "GET", path: "/v3/calls/" + strings.Repeat("s", 300)}, 404, "ERR_CALL_SESSION_NOT_FOUND"},
		} {
			r := e.do(tc.r)
			if r.status != tc.status || r.code != tc.code {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
			if e.snapshot() != before {
				t.Fatalf("%s wrote", tc.name)
			}
		}
		e.setCall("cat", ringing, "busy")
		if r := e.do(request{method: "PUT", path: "/v3/calls/" + ringing, headers: obo("ann"), body: `{"status":"cancelled"}`}); r.status != 409 || r.code != "ERR_CALL_TERMINATED" {
			t.Fatalf("cancel a busy call: %d %s", r.status, r.body)
		}
	})
}

// TestWebhookCallTriggers drives every call trigger once, next to a refused change, and
// checks each event and its data.
func TestWebhookCallTriggers(t *testing.T) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := webhookEnv(t, b)
			rc := newReceiver(t)
			for _, u := range []string{"ann", "bob", "cat"} {
				e.mustUser(u, "User "+u)
			}
			triggers := []string{"call_initiated", "call_started", "call_ended", "call_participant_joined", "call_participant_left",
				"call_busy", "call_cancelled", "call_rejected", "call_unanswered"}
			body, _ := json.Marshal(map[string]any{"webhookURL": rc.srv.URL + "/hook", "triggers": triggers})
			e.ok(request{method: "POST", path: "/v3/webhooks", body: string(body)})

			one := e.callTo("ann", "bob", "user", "audio")
			e.setCall("bob", one, "ongoing")
			e.setCall("ann", one, "ended")
			if r := e.do(request{method: "PUT", path: "/v3/calls/" + one, headers: obo("bob"), body: `{"status":"ended"}`}); r.status != 409 {
				t.Fatalf("end twice: %d %s", r.status, r.body)
			}
			e.setCall("bob", e.callTo("ann", "bob", "user", "video"), "rejected")
			e.setCall("ann", e.callTo("ann", "cat", "user", "audio"), "cancelled")
			e.setCall("cat", e.callTo("ann", "cat", "user", "audio"), "busy")
			e.setCall("cat", e.callTo("ann", "cat", "user", "audio"), "unanswered")

			want := []string{"call_initiated", "call_started", "call_participant_joined", "call_participant_joined",
				"call_participant_left", "call_participant_left", "call_ended",
				"call_initiated", "call_rejected", "call_initiated", "call_cancelled", "call_initiated", "call_busy",
				"call_initiated", "call_unanswered"}
			got := rc.wait(t, len(want))
			var names []string
			data := map[string][]json.RawMessage{}
			for _, d := range got {
				names = append(names, d.env.Trigger)
				data[d.env.Trigger] = append(data[d.env.Trigger], d.env.Data)
			}
			if !sameMultiset(names, want) {
				t.Fatalf("triggers\n got %v\nwant %v", names, want)
			}
			var initiated struct{ Message callMsg }
			json.Unmarshal(data["call_initiated"][0], &initiated)
			if initiated.Message.Category != "call" || initiated.Message.Data.Action != "initiated" || initiated.Message.Data.Entities.On.Entity.SessionID == "" {
				t.Errorf("call_initiated: %s", data["call_initiated"][0])
			}
			var rejected struct{ Message callMsg }
			json.Unmarshal(data["call_rejected"][0], &rejected)
			if rejected.Message.Sender != "bob" || rejected.Message.Data.Action != "rejected" {
				t.Errorf("call_rejected: %s", data["call_rejected"][0])
			}
			var started struct {
				CreatedAt int64 `json:"created_at"`
				SessionID string
			}
			json.Unmarshal(data["call_started"][0], &started)
			if started.SessionID != one || started.CreatedAt == 0 {
				t.Errorf("call_started: %s", data["call_started"][0])
			}
			type occupant struct {
				JoinedAt  int64  `json:"joined_at"`
				LeftAt    int64  `json:"left_at"`
				AudioCall string `json:"audio_call"`
				Name, UID string
			}
			var left struct {
				Occupant  occupant
				SessionID string
			}
			json.Unmarshal(data["call_participant_left"][0], &left)
			if left.SessionID != one || left.Occupant.JoinedAt == 0 || left.Occupant.LeftAt == 0 || left.Occupant.AudioCall != "true" ||
				left.Occupant.Name != "User "+left.Occupant.UID {
				t.Errorf("call_participant_left: %s", data["call_participant_left"][0])
			}
			var ended struct {
				AllOccupants []occupant `json:"all_occupants"`
				DestroyedAt  int64      `json:"destroyed_at"`
				SessionID    string
			}
			json.Unmarshal(data["call_ended"][0], &ended)
			if ended.SessionID != one || len(ended.AllOccupants) != 2 || ended.DestroyedAt == 0 {
				t.Errorf("call_ended: %s", data["call_ended"][0])
			}
		})
	}
}

// TestCallConcurrentAnswers: the session's row serialises its changes. Eight answers of one
// one-to-one call: one wins, the others are told it is answered; eight members joining a
// group call at once all get in, counted once each.
func TestCallConcurrentAnswers(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		members := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}
		for _, u := range append([]string{"ann", "bob"}, members...) {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", members...)
		one := e.callTo("ann", "bob", "user", "audio")
		grp := e.callTo("ann", "g", "group", "video")
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		joined := make([]int, 8)
		for i := range 8 {
			wg.Add(2)
			go func() {
				defer wg.Done()
				statuses[i] = e.do(request{method: "PUT", path: "/v3/calls/" + one, headers: obo("bob"), body: `{"status":"ongoing"}`}).status
			}()
			go func() {
				defer wg.Done()
				joined[i] = e.do(request{method: "PUT", path: "/v3/calls/" + grp, headers: obo(members[i]), body: `{"status":"ongoing"}`}).status
			}()
		}
		wg.Wait()
		slices.Sort(statuses)
		if fmt.Sprint(statuses) != "[200 409 409 409 409 409 409 409]" {
			t.Errorf("one-to-one answers: %v", statuses)
		}
		if fmt.Sprint(joined) != "[200 200 200 200 200 200 200 200]" {
			t.Errorf("group joins: %v", joined)
		}
		if got := e.ok(request{method: "GET", path: "/v3/calls/" + grp}); got["totalParticipants"] != 9.0 || got["status"] != "ongoing" {
			t.Errorf("group call: %v", got)
		}
		if n := e.count(`SELECT COUNT(*) FROM messages WHERE category = 'call'`); n != 2+1+8 {
			t.Errorf("%d call messages, want 11", n)
		}
	})
}

// TestCallsRingOut: a call nobody answered within the ring timeout is marked unanswered, as
// its caller's client would have, once, however many nodes sweep; answered calls and calls
// still within their time are left alone, and a rung-out call cannot be answered late.
func TestCallsRingOut(t *testing.T) {
	callBackends(t, func(t *testing.T, e *env, tick func(int64)) {
		for _, u := range []string{"ann", "bob", "cat"} {
			e.mustUser(u, u)
		}
		e.mustGroup("g", "ann", "bob", "cat")
		one := e.callTo("ann", "bob", "user", "audio")
		grp := e.callTo("cat", "g", "group", "video")
		answered := e.callTo("bob", "cat", "user", "audio")
		e.setCall("cat", answered, "ongoing")
		tick(30)
		if ms, err := e.svc.Calls().ExpireRingingCalls(e.ctx(), time.Minute); err != nil || len(ms) != 0 {
			t.Fatalf("at 30 s: %d messages, %v", len(ms), err)
		}
		late := e.callTo("ann", "cat", "user", "video")
		tick(31)
		// Four nodes sweep at once: each call is marked once.
		var mu sync.Mutex
		var got []chat.Message
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				ms, err := e.svc.Calls().ExpireRingingCalls(e.ctx(), time.Minute)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				got = append(got, ms...)
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(got) != 2 {
			t.Fatalf("%d call messages written, want 2: %+v", len(got), got)
		}
		for _, m := range got {
			if m.Category != "call" || m.Action != "unanswered" || m.Sender != "ann" && m.Sender != "cat" || m.ID == 0 {
				t.Errorf("the sweep's message: %+v %s", m, m.Data)
			}
		}
		for sid, want := range map[string]string{one: "unanswered", grp: "unanswered", answered: "ongoing", late: "initiated"} {
			if c := e.ok(request{method: "GET", path: "/v3/calls/" + sid}); c["status"] != want {
				t.Errorf("%s: %v, want %s", sid, c["status"], want)
			}
		}
		c := e.ok(request{method: "GET", path: "/v3/calls/" + one})
		if c["endedAt"] != float64(testClock.Unix()+61) {
			t.Errorf("rung out: %v", c)
		}
		if l := e.messages(request{method: "GET", path: "/v3/users/ann/messages?categories=call", headers: obo("bob")}); len(l.Data) != 2 {
			t.Errorf("bob sees %d call messages with ann, want initiated and unanswered", len(l.Data))
		}
		if r := e.do(request{method: "PUT", path: "/v3/calls/" + one, headers: obo("bob"), body: `{"status":"ongoing"}`}); r.code != "ERR_CALL_TERMINATED" {
			t.Errorf("answered after ringing out: %d %s", r.status, r.body)
		}
		if n := e.count(`SELECT COUNT(*) FROM messages WHERE category = 'call'`); n != 4+1+2 {
			t.Errorf("%d call messages, want 7", n)
		}

		// The loop every node runs (a quarter of the timeout apart) marks the last one.
		ctx, cancel := context.WithCancel(e.ctx())
		done := make(chan struct{})
		go func() { e.svc.Calls().RunCallExpiry(ctx, time.Second, slog.New(slog.DiscardHandler)); close(done) }()
		deadline := time.Now().Add(loadedWait)
		for e.ok(request{method: "GET", path: "/v3/calls/" + late})["status"] != "unanswered" {
			if time.Now().After(deadline) {
				t.Fatal("the sweep loop did not mark the late call")
			}
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
		<-done
	})
}
