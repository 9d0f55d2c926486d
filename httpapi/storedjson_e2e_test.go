package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStoredBadBytesDoNotBreakReads puts what older versions (or a hand edit) may have left in
// the database straight into it: invalid UTF-8 (SQLite only: PostgreSQL refuses it in a text
// column), escaped lone surrogates, and metadata that is not JSON at all. Every read that
// includes such a row still answers 200 with JSON a strict parser accepts: invalid bytes and
// lone surrogates read as U+FFFD, and metadata that is not a JSON object is left out.
func TestStoredBadBytesDoNotBreakReads(t *testing.T) {
	backends(t, func(t *testing.T, e *env) {
		exec := func(q string, args ...any) error {
			if e.backend == "sqlite" {
				q = strings.NewReplacer("$1", "?1", "$2", "?2", "$3", "?3").Replace(q)
			}
			_, err := e.raw.Exec(q, args...)
			return err
		}
		e.mustUser("good", "Good")
		e.mustUser("bad", "Bad")
		e.mustUser("broken", "Broken")
		m := e.mustText("bad", "good", "hi")
		m2 := e.mustText("broken", "good", "hi")
		for _, r := range []struct{ uid, id string }{{"bad", m.ID}, {"good", m.ID}, {"broken", m2.ID}} {
			if _, err := e.c.OnBehalfOf(r.uid).AddReaction(e.ctx(), r.id, "👍"); err != nil {
				t.Fatal(err)
			}
		}
		badMeta, badData, badName := "{\"k\":\"\xff\",\"s\":\"\\ud800\"}", "{\"text\":\"hi \xc0\x80\",\"x\":\"\\udc00\"}", "B\xffad"
		err := exec("UPDATE users SET metadata = $1, name = $2 WHERE uid = 'bad'", badMeta, badName)
		if e.backend == "postgres" {
			if err == nil {
				t.Fatal("PostgreSQL stored invalid UTF-8 in a text column")
			}
			badMeta, badData, badName = `{"k":"\ud800","s":"x\udfff"}`, `{"text":"hi \udc00","x":"\ud800"}`, "Bad"
			err = exec("UPDATE users SET metadata = $1, name = $2 WHERE uid = 'bad'", badMeta, badName)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := exec("UPDATE messages SET data = $1 WHERE id = $2", badData, m.ID); err != nil {
			t.Fatal(err)
		}
		if err := exec(`UPDATE users SET metadata = '{"k":' WHERE uid = 'broken'`); err != nil {
			t.Fatal(err)
		}

		for _, path := range []string{"/v3/users", "/v3/users?withTags=true", "/v3/users/bad", "/v3/users/broken",
			"/v3/messages/" + m.ID, "/v3/messages/" + m.ID + "/reactions", "/v3/messages/" + m.ID + "/reactions/%F0%9F%91%8D",
			"/v3/messages/" + m2.ID + "/reactions"} {
			r := e.do(request{method: "GET", path: path})
			if r.status != 200 {
				t.Errorf("GET %s: %d %s", path, r.status, r.body)
				continue
			}
			strictJSON(t, "GET "+path, r.body)
		}
		r := e.do(request{method: "GET", path: "/v3/users"})
		var list struct {
			Data []struct {
				UID      string          `json:"uid"`
				Metadata json.RawMessage `json:"metadata"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.body, &list); err != nil || len(list.Data) != 3 {
			t.Fatalf("list: %v %s", err, r.body)
		}
		for _, u := range list.Data {
			switch {
			case u.UID == "broken" && u.Metadata != nil:
				t.Errorf("metadata that is not JSON is written: %s", u.Metadata)
			case u.UID == "bad" && !strings.Contains(string(u.Metadata), `\ufffd`):
				t.Errorf("lone surrogate not read as U+FFFD: %s", u.Metadata)
			}
		}
		for _, r := range []response{
			e.do(request{method: "POST", path: "/v3/messages/" + m.ID + "/reactions/x", headers: map[string]string{"onBehalfOf": "good"}}),
			e.do(request{method: "DELETE", path: "/v3/messages/" + m.ID}),
		} {
			if r.status != 200 {
				t.Errorf("write after the bad rows: %d %s", r.status, r.body)
				continue
			}
			strictJSON(t, "write", r.body)
		}
	})
}
