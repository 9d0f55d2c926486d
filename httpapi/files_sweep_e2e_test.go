package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/blobstore"
	"github.com/natter-chat/natter/sqlstore"
)

// movingClock is a test clock that a test moves on.
type movingClock struct{ at atomic.Int64 }

func newMovingClock() *movingClock {
	c := &movingClock{}
	c.at.Store(testClock.UnixNano())
	return c
}
func (c *movingClock) now() time.Time              { return time.Unix(0, c.at.Load()).UTC() }
func (c *movingClock) move(d time.Duration)        { c.at.Add(int64(d)) }
func (e *fileEnv) rows(query string, a ...any) int { return e.count(query, a...) }

// uploadOnly posts a file through an upload form as ann and sends nothing.
func (e *fileEnv) uploadOnly(name, content string) client.FileAttachment {
	e.t.Helper()
	forms := e.presign("ann", map[string]client.UploadFileInfo{"f": {FileID: "f", Name: name, Size: int64(len(content)), MimeType: "text/plain"}})
	a, err := e.plain.UploadFile(e.ctx(), forms["f"], name, bytes.NewReader([]byte(content)))
	if err != nil {
		e.t.Fatalf("upload %s: %v", name, err)
	}
	return *a
}

// sendWith sends ann's file message to bob carrying a.
func (e *fileEnv) sendWith(a client.FileAttachment) error {
	_, err := e.c.OnBehalfOf("ann").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "file",
		Data: map[string]any{"attachments": []client.FileAttachment{a}}})
	return err
}

// TestOrphanFileSweep: files no message carries are deleted, bytes and record, once older
// than the sweep's age; files a message carries (sent after an upload form, or multipart),
// young files and files a held message carries stay.
func TestOrphanFileSweep(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			clock := newMovingClock()
			e := newFileEnv(t, b, chat.Config{MaxFileSize: 1 << 20, Now: clock.now}, nil, httpapi.Options{})
			orphan := e.uploadOnly("orphan.txt", "nobody sent me")
			sent := e.uploadOnly("sent.txt", "sent in a message")
			if err := e.sendWith(sent); err != nil {
				t.Fatal(err)
			}
			body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "multi.txt", "sent multipart")
			if r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body}); r.status != 200 {
				t.Fatalf("multipart send: %d %s", r.status, r.body)
			}
			// A file a message names by URL with escaped slashes is still its file.
			escaped := e.uploadOnly("escaped.txt", "named with \\/")
			esc := bytes.ReplaceAll([]byte(fmt.Sprintf(`{"receiver":"bob","receiverType":"user","category":"message","type":"file","data":{"url":%q}}`, escaped.URL)), []byte("/"), []byte(`\/`))
			if r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann"}, body: string(esc)}); r.status != 200 {
				t.Fatalf("escaped send: %d %s", r.status, r.body)
			}
			// A message a moderation rule holds keeps its file: a moderator may approve it later.
			e.ok(request{method: "POST", path: "/v3/moderation/rules", body: `{"id":"zork","name":"Z","conditions":[{"category":"word","value":["zorkmid"]}],"action":["blockMessage"]}`})
			held := e.uploadOnly("held.txt", "held for review")
			hr := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann"},
				body: fmt.Sprintf(`{"receiver":"bob","receiverType":"user","category":"message","type":"file","data":{"text":"a zorkmid","attachments":[{"url":%q}]}}`, held.URL)})
			if hr.status != 200 || !strings.Contains(string(hr.body), `"pending"`) {
				t.Fatalf("the held send: %d %s", hr.status, hr.body)
			}
			// A URL of this app's that names no file is a dead link natter knows of: refused.
			dead := sent
			dead.URL = strings.Replace(sent.URL, "/files/demo/", "/files/demo/"+strings.Repeat("a", 32)+"/", 1)[:len(sent.URL)]
			if err := e.sendWith(dead); statusOf(err) != 400 {
				t.Errorf("a send naming no stored file: %v", err)
			}
			if n, err := e.svc.SweepOrphanFiles(e.ctx(), 24*time.Hour); err != nil || n != 0 {
				t.Fatalf("a sweep of young files deleted %d: %v", n, err)
			}
			clock.move(25 * time.Hour)
			young := e.uploadOnly("young.txt", "uploaded a minute ago")
			if n, err := e.svc.SweepOrphanFiles(e.ctx(), 24*time.Hour); err != nil || n != 1 {
				t.Fatalf("the sweep deleted %d files, want the orphan: %v", n, err)
			}
			if r, _ := get(t, orphan.URL, nil); r.StatusCode != 404 {
				t.Errorf("the orphan after the sweep: %d", r.StatusCode)
			}
			// Sent now, it is refused in the envelope: the message would carry a dead link.
			r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann"},
				body: fmt.Sprintf(`{"receiver":"bob","receiverType":"user","category":"message","type":"file","data":{"url":%q}}`, orphan.URL)})
			if r.status != 400 || !strings.Contains(string(r.body), `"code":"ERR_BAD_REQUEST"`) {
				t.Errorf("a send of the swept file: %d %s", r.status, r.body)
			}
			for _, a := range []client.FileAttachment{sent, escaped, young, held} {
				if r, _ := get(t, a.URL, nil); r.StatusCode != 200 {
					t.Errorf("%s after the sweep: %d", a.Name, r.StatusCode)
				}
			}
			if n := len(e.stored()); n != 5 {
				t.Errorf("%d files on disk, want 5", n)
			}
			if n := e.rows(`SELECT COUNT(*) FROM files`); n != 5 {
				t.Errorf("%d file records, want 5", n)
			}
		})
	}
}

// TestOrphanSweepRacesSends: sends carrying files and sweeps of the same files at once, on
// several connections (and on PostgreSQL two nodes: two services, two pools). Whatever the interleaving, a send that committed has its file, a send
// refused had its file swept (400 in the envelope), no file is deleted twice, and nothing a
// message carries is gone.
func TestOrphanSweepRacesSends(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			clock := newMovingClock()
			e := newFileEnv(t, b, chat.Config{MaxFileSize: 1 << 20, Now: clock.now}, nil, httpapi.Options{})
			// A second node: its own service and connections on the same database and files.
			nodes := []*chat.Service{e.svc}
			if b == "postgres" {
				db2, err := sqlstore.Open(context.Background(), e.dbURL, sqlstore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db2.Close() })
				files2, err := blobstore.OpenDisk(e.dir)
				if err != nil {
					t.Fatal(err)
				}
				svc2 := chat.New(db2, chat.Config{MaxFileSize: 1 << 20, Now: clock.now, Files: files2})
				t.Cleanup(func() { svc2.Close(context.Background()) })
				nodes = append(nodes, svc2)
			}
			const n = 60
			atts := make([]client.FileAttachment, n)
			for i := range atts {
				atts[i] = e.uploadOnly(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("file %d", i))
			}
			clock.move(25 * time.Hour) // every file is due now
			var wg, sends sync.WaitGroup
			sentOK := make([]bool, n)
			errs := make([]error, n)
			var swept atomic.Int64
			for i := range atts {
				if i%2 == 1 {
					continue // the odd ones nobody sends
				}
				sends.Add(1)
				go func() {
					defer sends.Done()
					// Spread over the sweeps' time, so that some commit before a claim, some
					// after it, and some while it runs.
					time.Sleep(time.Duration(i) * time.Millisecond)
					errs[i] = e.sendWith(atts[i])
					sentOK[i] = errs[i] == nil
				}()
			}
			done := make(chan struct{})
			go func() { sends.Wait(); close(done) }()
			for w := range 4 { // four sweepers at once, on two nodes on PostgreSQL: four transactions claiming
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(15+w*5) * time.Millisecond)
					for {
						k, err := nodes[w%len(nodes)].SweepOrphanFiles(e.ctx(), 24*time.Hour)
						if err != nil {
							t.Error(err)
						}
						swept.Add(int64(k))
						select {
						case <-done:
							return
						case <-time.After(3 * time.Millisecond):
						}
					}
				}()
			}
			wg.Wait()
			// A last sweep takes whatever the racing ones left (a send that took a row first).
			k, err := e.svc.SweepOrphanFiles(e.ctx(), 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			swept.Add(int64(k))
			sent := 0
			for i, a := range atts {
				r, _ := get(t, a.URL, nil)
				switch {
				case sentOK[i]:
					sent++
					if r.StatusCode != 200 {
						t.Errorf("file %d: its message committed, and it answers %d", i, r.StatusCode)
					}
				case i%2 == 0:
					if s := statusOf(errs[i]); s != 400 {
						t.Errorf("file %d: its send failed with %v (status %d), want 400 for a swept file", i, errs[i], s)
					}
					fallthrough
				default:
					if r.StatusCode != 404 {
						t.Errorf("file %d: no message carries it, and it answers %d", i, r.StatusCode)
					}
				}
			}
			if int(swept.Load()) != n-sent {
				t.Errorf("the sweeps deleted %d files; %d were not sent", swept.Load(), n-sent)
			}
			if got := e.rows(`SELECT COUNT(*) FROM files`); got != sent || len(e.stored()) != sent {
				t.Errorf("%d records and %d files on disk, want %d", got, len(e.stored()), sent)
			}
			t.Logf("%d of %d sends committed before the sweep claimed their file", sent, n/2)
		})
	}
}
