package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/blobstore"
)

// fileEnv is an env that stores files on disk, in dir, with a per-file cap of maxFile.
type fileEnv struct {
	*env
	dir   string
	plain *client.Client // for the upload forms' target, which is no API endpoint
}

func newFileEnv(t *testing.T, backend string, cfg chat.Config, store func(dir string) blobstore.Store, opt httpapi.Options) *fileEnv {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "natter.db.files")
	var files blobstore.Store
	if store != nil {
		files = store(dir)
	} else {
		d, err := blobstore.OpenDisk(dir)
		if err != nil {
			t.Fatal(err)
		}
		files = d
	}
	cfg.Files = files
	e := newEnvWith(t, backend, cfg, opt)
	e.mustUser("ann", "Ann")
	e.mustUser("bob", "Bob")
	return &fileEnv{env: e, dir: dir, plain: client.New(e.srv.URL, "", client.WithHTTPClient(http.DefaultClient))}
}

// stored lists the files in the store's directory.
func (e *fileEnv) stored() []string {
	var out []string
	filepath.WalkDir(e.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, filepath.Base(p))
		}
		return nil
	})
	return out
}

// get fetches a URL without credentials, as a browser's <img> does.
func get(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

func (e *fileEnv) presign(uid string, files map[string]client.UploadFileInfo) map[string]client.UploadForm {
	e.t.Helper()
	forms, err := e.c.OnBehalfOf(uid).CreateUploadURLs(e.ctx(), client.UploadURLRequest{Files: files, Receiver: "bob", ReceiverType: "user"})
	if err != nil {
		e.t.Fatalf("upload-url: %v", err)
	}
	return forms
}

// TestUploadFirstThenSend: the SDK 4 / UI Kit 7 way. An upload form per file, the file
// posted to it, the message sent with the attachments; the file served as stored, to anyone
// with its URL, by range too; the message's permanent deletion deletes the file.
func TestUploadFirstThenSend(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := newFileEnv(t, b, chat.Config{MaxFileSize: 1 << 20}, nil, httpapi.Options{})
			// The SDK learns the cap from its settings, and refuses a larger file itself.
			me := e.do(request{method: "PUT", path: "/v3/me", headers: map[string]string{"apikey": "", "authToken": e.mustToken("ann")}, body: `{}`})
			if !strings.Contains(string(me.body), `"file.size.max":1048576,"file.count.max":10`) {
				t.Errorf("the settings do not carry the upload limits: %s", me.body)
			}
			content := bytes.Repeat([]byte("\x89PNG-cat-"), 1000)
			// As the SDK's PresignClient asks, raw, to see the answer's exact shape.
			res := e.do(request{method: "POST", path: "/v3/files/upload-url", headers: map[string]string{"onBehalfOf": "ann"},
				body: fmt.Sprintf(`{"files":{"f-1":{"fileId":"f-1","name":"cat.png","size":%d,"mimeType":"image/png"}},"receiver":"bob","receiverType":"user","parentMessageId":7}`, len(content))})
			var answer struct {
				Data map[string]client.UploadForm
			}
			if json.Unmarshal(res.body, &answer); res.status != 200 || len(answer.Data) != 1 {
				t.Fatalf("upload-url: %d %s", res.status, res.body)
			}
			form := answer.Data["f-1"]
			a := form.Attachment
			if form.Request.Method != "POST" || form.Request.URL != e.srv.URL+"/files/demo" || form.Request.Body["policy"] == "" || form.Request.Body["signature"] == "" ||
				a.Name != "cat.png" || a.Extension != "png" || a.MimeType != "image/png" || a.Size != int64(len(content)) ||
				!strings.HasPrefix(a.URL, e.srv.URL+"/files/demo/") || !strings.HasSuffix(a.URL, "/cat.png") || form.ExpiresAt != testClock.Unix()+900 {
				t.Fatalf("the form: %+v", form)
			}
			if e.stored() != nil || e.count(`SELECT COUNT(*) FROM files`) != 0 {
				t.Fatal("a form stored something before its file came")
			}
			// Before its file, the URL is nothing.
			if r, _ := get(t, a.URL, nil); r.StatusCode != 404 {
				t.Errorf("before the upload: %d", r.StatusCode)
			}
			got, err := e.plain.UploadFile(e.ctx(), form, "cat.png", bytes.NewReader(content))
			if err != nil || *got != a {
				t.Fatalf("upload: %+v %v", got, err)
			}
			// The same form again: refused, the file as it was.
			if _, err := e.plain.UploadFile(e.ctx(), form, "cat.png", bytes.NewReader(content)); statusOf(err) != 403 {
				t.Errorf("a form used twice: %v", err)
			}
			// Served as stored, with no credentials.
			r, body := get(t, a.URL, nil)
			h := r.Header
			if r.StatusCode != 200 || !bytes.Equal(body, content) || h.Get("Content-Type") != "image/png" || h.Get("Content-Length") != fmt.Sprint(len(content)) ||
				h.Get("ETag") == "" || !strings.Contains(h.Get("Cache-Control"), "max-age=31536000") || h.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.HasPrefix(h.Get("Content-Disposition"), "inline") || h.Get("Accept-Ranges") != "bytes" {
				t.Fatalf("GET: %d %v (%d bytes)", r.StatusCode, h, len(body))
			}
			if r, body := get(t, a.URL, map[string]string{"Range": "bytes=9-17"}); r.StatusCode != 206 || string(body) != "\x89PNG-cat-" {
				t.Errorf("range: %d %q", r.StatusCode, body)
			}
			if r, _ := get(t, a.URL, map[string]string{"If-None-Match": h.Get("ETag")}); r.StatusCode != 304 {
				t.Errorf("If-None-Match: %d", r.StatusCode)
			}
			// Another app's host, or path, reaches no file of this app's.
			other, _ := e.newApp("other", "us")
			_ = other
			if r, _ := get(t, a.URL, map[string]string{"Host": "other.api-us." + testDomain}); r.StatusCode != 404 {
				t.Errorf("another app's host: %d", r.StatusCode)
			}
			if r, _ := get(t, strings.Replace(a.URL, "/files/demo/", "/files/other/", 1), nil); r.StatusCode != 404 {
				t.Errorf("another app's path: %d", r.StatusCode)
			}
			if r, _ := get(t, a.URL, map[string]string{"Host": "demo.api-us." + testDomain}); r.StatusCode != 200 {
				t.Errorf("the app's own host: %d", r.StatusCode)
			}
			// The message, as the UI Kit sends it: JSON with the attachments.
			m, err := e.c.OnBehalfOf("ann").SendMessage(e.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "image",
				Data: map[string]any{"attachments": []client.FileAttachment{a}}})
			if err != nil {
				t.Fatal(err)
			}
			hist := e.do(request{method: "GET", path: "/v3/users/bob/messages", headers: map[string]string{"onBehalfOf": "ann"}})
			if !strings.Contains(string(hist.body), a.URL) {
				t.Errorf("history does not carry the attachment: %s", hist.body)
			}
			// A permanent deletion deletes the file.
			del := e.do(request{method: "DELETE", path: "/v3/messages/" + m.ID, headers: map[string]string{"onBehalfOf": "ann"}, body: `{"permanent":true}`})
			if del.status != 200 {
				t.Fatalf("delete: %d %s", del.status, del.body)
			}
			if r, _ := get(t, a.URL, nil); r.StatusCode != 404 || e.stored() != nil || e.count(`SELECT COUNT(*) FROM files`) != 0 {
				t.Errorf("after the permanent delete: %d, on disk %v", r.StatusCode, e.stored())
			}
		})
	}
}

func statusOf(err error) int {
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Status
	}
	return 0
}

// TestMultipartFileSend: the SDK's sendMediaMessage with Files (SDK 3 for every media
// message): the files stored, the message answered with data.url and data.attachments as
// the hosted service does, and names that are paths, control characters or long kept only
// as display names.
func TestMultipartFileSend(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := newFileEnv(t, b, chat.Config{MaxFileSize: 1 << 20}, nil, httpapi.Options{})
			send := func(body, ct string) response {
				return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
			}
			long := strings.Repeat("n", 1000) + ".txt"
			body, ct := form(t, []string{"receiver", "bob", "type", "file", "receiverType", "user", "category", "message", "data", `{"text":"two files","metadata":{"k":1}}`},
				"files[]", "../../etc/passwd", "root:x:0:0",
				"files[]", "a\u202eb\u200bc.txt", "second",
				"files[]", long, "third")
			r := send(body, ct)
			var m struct {
				Data struct {
					ID   string
					Data struct {
						URL, Text   string
						Attachments []client.FileAttachment
						Metadata    map[string]any
					}
				}
			}
			if json.Unmarshal(r.body, &m); r.status != 200 || len(m.Data.Data.Attachments) != 3 || m.Data.Data.Text != "two files" || m.Data.Data.Metadata["k"] != 1.0 {
				t.Fatalf("send: %d %s", r.status, r.body)
			}
			atts := m.Data.Data.Attachments
			if m.Data.Data.URL != atts[0].URL {
				t.Errorf("data.url %q, want the first file's", m.Data.Data.URL)
			}
			for i, want := range []struct{ name, content string }{{"passwd", "root:x:0:0"}, {"abc.txt", "second"}, {strings.Repeat("n", 251) + ".txt", "third"}} {
				a := atts[i]
				if a.Name != want.name || a.Size != int64(len(want.content)) {
					t.Errorf("file %d: %+v, want name %q", i, a, want.name)
				}
				r, b := get(t, a.URL, nil)
				if r.StatusCode != 200 || string(b) != want.content {
					t.Errorf("file %d: GET %d %q", i, r.StatusCode, b)
				}
			}
			if atts[1].MimeType != "text/plain" && !strings.HasPrefix(atts[1].MimeType, "application/octet-stream") {
				t.Errorf("type of a.txt: %q", atts[1].MimeType)
			}
			// Stored under random keys only: no name a client sent is a file's name.
			for _, f := range e.stored() {
				if len(f) != 32 || strings.ContainsAny(f, "./\\") {
					t.Errorf("stored as %q", f)
				}
			}
			if n := len(e.stored()); n != 3 {
				t.Errorf("%d files on disk", n)
			}
			// With an Idempotency-Key the body is kept to compare with a retry's: a small one
			// is sent once and replayed, one past the general cap refused and nothing stored.
			onDisk := len(e.stored())
			body, ct = form(t, []string{"receiver", "bob", "type", "file", "receiverType", "user", "category", "message"}, "files[]", "k.txt", "kept")
			h := map[string]string{"onBehalfOf": "ann", "Content-Type": ct, "Idempotency-Key": "upload-1"}
			first := e.do(request{method: "POST", path: "/v3/messages", headers: h, body: body})
			again := e.do(request{method: "POST", path: "/v3/messages", headers: h, body: body})
			if first.status != 200 || again.status != 200 || !bytes.Equal(first.body, again.body) || again.header.Get("Idempotent-Replayed") != "true" || len(e.stored()) != onDisk+1 {
				t.Errorf("a multipart send with an Idempotency-Key: %d, again %d %v, %d files", first.status, again.status, again.header, len(e.stored())-onDisk)
			}
			body, ct = form(t, []string{"receiver", "bob", "type", "file", "receiverType", "user", "category", "message"}, "files[]", "big.txt", strings.Repeat("x", 70<<10))
			big := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct, "Idempotency-Key": "upload-2"}, body: body})
			if big.status != 413 || len(e.stored()) != onDisk+1 {
				t.Errorf("a large multipart send with an Idempotency-Key: %d %s", big.status, big.body)
			}
			// A file a browser could run is a download, never shown in place.
			body, ct = form(t, []string{"receiver", "bob", "type", "file", "receiverType", "user", "category", "message"}, "files[]", "x.html", "<script>alert(1)</script>")
			r = send(body, ct)
			json.Unmarshal(r.body, &m)
			if r.status != 200 {
				t.Fatalf("html: %d %s", r.status, r.body)
			}
			res, _ := get(t, m.Data.Data.URL, nil)
			if !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("html served %v", res.Header)
			}
		})
	}
}

// TestFileRefusals: each bad upload is answered in the envelope with its status, and
// stores nothing and sends nothing.
func TestFileRefusals(t *testing.T) {
	t.Parallel()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			e := newFileEnv(t, b, chat.Config{MaxFileSize: 1000}, nil, httpapi.Options{})
			forms := e.presign("ann", map[string]client.UploadFileInfo{"a": {FileID: "a", Name: "a.bin", Size: 100, MimeType: "application/octet-stream"}})
			fa := forms["a"]
			post := func(fields []string, name, content string) response {
				body, ct := form(t, fields, "file", name, content)
				if name == "" {
					body, ct = form(t, fields)
				}
				return e.do(request{method: "POST", path: "/files/demo", headers: map[string]string{"apikey": "", "Content-Type": ct}, body: body})
			}
			policy, sig := fa.Request.Body["policy"], fa.Request.Body["signature"]
			before := e.snapshot()
			for _, c := range []struct {
				name   string
				r      func() response
				status int
				code   string
			}{
				{"upload-url: no files", func() response {
					return e.do(request{method: "POST", path: "/v3/files/upload-url", headers: map[string]string{"onBehalfOf": "ann"}, body: `{"files":{}}`})
				}, 400, "ERR_BAD_REQUEST"},
				{"upload-url: over the cap", func() response {
					return e.do(request{method: "POST", path: "/v3/files/upload-url", headers: map[string]string{"onBehalfOf": "ann"}, body: `{"files":{"x":{"name":"x","size":1001}}}`})
				}, 413, "ERR_BAD_REQUEST"},
				{"upload-url: size zero", func() response {
					return e.do(request{method: "POST", path: "/v3/files/upload-url", headers: map[string]string{"onBehalfOf": "ann"}, body: `{"files":{"x":{"name":"x","size":0}}}`})
				}, 400, "ERR_BAD_REQUEST"},
				{"upload-url: unknown receiver", func() response {
					return e.do(request{method: "POST", path: "/v3/files/upload-url", headers: map[string]string{"onBehalfOf": "ann"}, body: `{"files":{"x":{"name":"x","size":1}},"receiver":"nobody","receiverType":"user"}`})
				}, 404, "ERR_UID_NOT_FOUND"},
				{"upload-url: no acting user", func() response {
					return e.do(request{method: "POST", path: "/v3/files/upload-url", body: `{"files":{"x":{"name":"x","size":1}}}`})
				}, 400, ""},
				{"form: signature tampered", func() response {
					return post([]string{"policy", policy, "signature", sig[:len(sig)-2] + "AA"}, "a.bin", strings.Repeat("x", 100))
				}, 403, "AUTH_ERR_NO_ACCESS"},
				{"form: no signature", func() response { return post([]string{"policy", policy}, "a.bin", strings.Repeat("x", 100)) }, 403, "AUTH_ERR_NO_ACCESS"},
				{"form: another app's address", func() response {
					body, ct := form(t, []string{"policy", policy, "signature", sig}, "file", "a.bin", strings.Repeat("x", 100))
					return e.do(request{method: "POST", path: "/files/other", headers: map[string]string{"apikey": "", "Content-Type": ct}, body: body})
				}, 403, "AUTH_ERR_NO_ACCESS"},
				{"form: fewer bytes than signed", func() response {
					return post([]string{"policy", policy, "signature", sig}, "a.bin", strings.Repeat("x", 99))
				}, 400, "ERR_BAD_REQUEST"},
				{"form: more bytes than signed", func() response {
					return post([]string{"policy", policy, "signature", sig}, "a.bin", strings.Repeat("x", 101))
				}, 413, "ERR_BAD_REQUEST"},
				{"form: no file part", func() response { return post([]string{"policy", policy, "signature", sig}, "", "") }, 400, "ERR_BAD_REQUEST"},
				{"form: no boundary", func() response {
					return e.do(request{method: "POST", path: "/files/demo", headers: map[string]string{"apikey": "", "Content-Type": "multipart/form-data"}, body: "--x\r\n"})
				}, 400, "ERR_BAD_REQUEST"},
				{"form: truncated file", func() response {
					body, ct := form(t, []string{"policy", policy, "signature", sig}, "file", "a.bin", strings.Repeat("x", 100))
					return e.do(request{method: "POST", path: "/files/demo", headers: map[string]string{"apikey": "", "Content-Type": ct}, body: body[:len(body)-60]})
				}, 400, "ERR_BAD_REQUEST"},
				{"send: a file over the cap", func() response {
					body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "big.bin", strings.Repeat("x", 1001))
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
				}, 413, "ERR_BAD_REQUEST"},
				{"send: a second file over the cap", func() response {
					body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "ok.bin", "fine", "files[]", "big.bin", strings.Repeat("x", 1001))
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
				}, 413, "ERR_BAD_REQUEST"},
				{"send: no file and no URL", func() response {
					body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message", "data", "{}"})
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
				}, 400, "ERR_EMPTY_MESSAGE_FILE"},
				{"send: files to a receiver that does not exist", func() response {
					body, ct := form(t, []string{"receiver", "nobody", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "ok.bin", "fine")
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
				}, 404, "ERR_UID_NOT_FOUND"},
				{"send: NUL in a file's part header", func() response {
					body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "a\x00b.txt", "fine")
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
				}, 400, "ERR_BAD_REQUEST"},
				{"send: truncated in a file", func() response {
					body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "ok.bin", strings.Repeat("y", 500))
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body[:len(body)-200]})
				}, 400, "ERR_BAD_REQUEST"},
				{"send: JSON over the general cap", func() response {
					return e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann"},
						body: `{"receiver":"bob","receiverType":"user","type":"text","category":"message","data":{"text":"` + strings.Repeat("x", 70<<10) + `"}}`})
				}, 413, "ERR_BAD_REQUEST"},
			} {
				r := c.r()
				if r.status != c.status || (c.code != "" && r.code != c.code) {
					t.Errorf("%s: %d %s, want %d %s", c.name, r.status, r.body, c.status, c.code)
				}
				if !strings.Contains(string(r.body), `"error"`) {
					t.Errorf("%s: not the error envelope: %s", c.name, r.body)
				}
				if s := e.stored(); s != nil {
					t.Errorf("%s: left on disk: %v", c.name, s)
				}
			}
			if e.snapshot() != before {
				t.Error("a refused upload or send wrote something")
			}
		})
	}
}

// failingStore is a blob store whose disk is full.
type failingStore struct{ blobstore.Store }

func (failingStore) Put(context.Context, string, io.Reader, int64) (int64, error) {
	return 0, fmt.Errorf("%w: no space left on device", blobstore.ErrUnavailable)
}

// TestFileStoreUnavailable: a full disk is 503 with Retry-After, and no message is sent.
func TestFileStoreUnavailable(t *testing.T) {
	backends(t, func(t *testing.T, base *env) {
		e := newFileEnv(t, base.backend, chat.Config{MaxFileSize: 1000}, func(dir string) blobstore.Store {
			d, _ := blobstore.OpenDisk(dir)
			return failingStore{d}
		}, httpapi.Options{})
		before := e.snapshot()
		body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "ok.bin", "fine")
		r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
		if r.status != 503 || r.code != "ERR_SERVICE_UNAVAILABLE" || r.header.Get("Retry-After") == "" {
			t.Errorf("disk full: %d %s Retry-After %q", r.status, r.body, r.header.Get("Retry-After"))
		}
		if e.snapshot() != before {
			t.Error("a send whose file could not be stored wrote something")
		}
	})
}

// TestUploadSlots: past --max-uploads requests receiving files at once, the next is 503
// with Retry-After, through a form and as a multipart send, and stores nothing; when one
// ends, uploads are taken again. The slot is held through the server's own hook rather than
// by a half-sent upload, whose handler a loaded machine may start after the tries meant to
// collide with it.
func TestUploadSlots(t *testing.T) {
	backends(t, func(t *testing.T, base *env) {
		e := newFileEnv(t, base.backend, chat.Config{MaxFileSize: 1 << 20}, nil, httpapi.Options{MaxUploads: 1})
		srv, ok := e.srv.Config.Handler.(*httpapi.Server)
		if !ok {
			t.Fatalf("the test server's handler is a %T", e.srv.Config.Handler)
		}
		release, ok := srv.TakeUploadSlot()
		if !ok {
			t.Fatal("the one upload slot is taken before any upload")
		}
		forms := e.presign("ann", map[string]client.UploadFileInfo{"b": {Name: "b.bin", Size: 10}})
		body, ct := form(t, []string{"policy", forms["b"].Request.Body["policy"], "signature", forms["b"].Request.Body["signature"]}, "file", "b.bin", "0123456789")
		r := e.do(request{method: "POST", path: "/files/demo", headers: map[string]string{"apikey": "", "Content-Type": ct}, body: body})
		if r.status != 503 || r.header.Get("Retry-After") == "" || r.code != "ERR_SERVICE_UNAVAILABLE" {
			t.Fatalf("an upload with every slot taken: %d %s", r.status, r.body)
		}
		body, ct = form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", "c.bin", "0123456789")
		r = e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
		if r.status != 503 || r.header.Get("Retry-After") == "" || r.code != "ERR_SERVICE_UNAVAILABLE" {
			t.Fatalf("a multipart send with every slot taken: %d %s", r.status, r.body)
		}
		if n := len(e.stored()); n != 0 {
			t.Fatalf("%d files stored by refused uploads", n)
		}
		release()
		if _, err := e.plain.UploadFile(e.ctx(), forms["b"], "b.bin", strings.NewReader("0123456789")); err != nil {
			t.Errorf("after the slot was given back: %v", err)
		}
		if n := len(e.stored()); n != 1 {
			t.Errorf("%d files stored, want the one upload's", n)
		}
	})
}

// TestUploadStreams: a file many times the JSON cap streams to disk: the process allocates
// a small fraction of its size receiving it. Not parallel, so that the figure is this
// upload's alone.
func TestUploadStreams(t *testing.T) {
	const size = 64 << 20
	e := newFileEnv(t, "sqlite", chat.Config{MaxFileSize: size}, nil, httpapi.Options{})
	forms := e.presign("ann", map[string]client.UploadFileInfo{"big": {Name: "big.bin", Size: size}})
	var before, after runtimeMem
	before.read()
	start := time.Now()
	a, err := e.plain.UploadFile(e.ctx(), forms["big"], "big.bin", io.LimitReader(zeros{}, size))
	took := time.Since(start)
	after.read()
	if err != nil || a.Size != size {
		t.Fatalf("upload: %+v %v", a, err)
	}
	allocated := after.total - before.total
	t.Logf("64 MiB upload: %d KiB allocated in all (client and server), %v (%.0f MiB/s, fsync included)", allocated>>10, took.Round(time.Millisecond), 64/took.Seconds())
	if allocated > 8<<20 {
		t.Errorf("%d bytes allocated to receive %d: the upload is buffered, not streamed", allocated, size)
	}
	if fi, err := os.Stat(filepath.Join(e.dir, e.stored()[0][:2], e.stored()[0])); err != nil || fi.Size() != size {
		t.Errorf("on disk: %v %v", fi, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// TestUploadFormExpires: a form works for 15 minutes, then says it expired.
func TestUploadFormExpires(t *testing.T) {
	backends(t, func(t *testing.T, base *env) {
		var now atomic.Int64
		now.Store(testClock.Unix())
		e := newFileEnv(t, base.backend, chat.Config{Now: func() time.Time { return time.Unix(now.Load(), 0) }}, nil, httpapi.Options{})
		forms := e.presign("ann", map[string]client.UploadFileInfo{"a": {Name: "a.txt", Size: 2}, "b": {Name: "b.txt", Size: 2}})
		now.Add(15 * 60)
		if _, err := e.plain.UploadFile(e.ctx(), forms["a"], "a.txt", strings.NewReader("ok")); err != nil {
			t.Errorf("at 15 minutes: %v", err)
		}
		now.Add(1)
		_, err := e.plain.UploadFile(e.ctx(), forms["b"], "b.txt", strings.NewReader("ok"))
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != 403 || !strings.Contains(ce.Message, "expired") {
			t.Errorf("after 15 minutes: %v", err)
		}
		if n := len(e.stored()); n != 1 {
			t.Errorf("%d files stored, want the first only", n)
		}
	})
}

// TestInterruptedUpload: a client that breaks off in the middle of its file leaves nothing:
// no file on disk, no record, and the form still works for the next try.
func TestInterruptedUpload(t *testing.T) {
	backends(t, func(t *testing.T, base *env) {
		e := newFileEnv(t, base.backend, chat.Config{MaxFileSize: 1 << 20}, nil, httpapi.Options{})
		forms := e.presign("ann", map[string]client.UploadFileInfo{"a": {Name: "a.bin", Size: 100000}})
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			_, err := e.plain.UploadFile(e.ctx(), forms["a"], "a.bin", pr)
			done <- err
		}()
		pw.Write(bytes.Repeat([]byte("x"), 50000))
		pw.CloseWithError(errors.New("the client went away"))
		if err := <-done; err == nil {
			t.Fatal("the broken upload succeeded")
		}
		// The server sees the break when its read fails, which on a loaded machine may be late.
		deadline := time.Now().Add(loadedWait)
		for time.Now().Before(deadline) && (e.stored() != nil || e.count(`SELECT COUNT(*) FROM files`) != 0) {
			time.Sleep(20 * time.Millisecond)
		}
		if s := e.stored(); s != nil {
			t.Errorf("left on disk: %v", s)
		}
		if n := e.count(`SELECT COUNT(*) FROM files`); n != 0 {
			t.Errorf("%d records", n)
		}
		// The server is done with it: the same form takes the whole file now.
		for time.Now().Before(deadline) {
			if _, err := e.plain.UploadFile(e.ctx(), forms["a"], "a.bin", bytes.NewReader(bytes.Repeat([]byte("x"), 100000))); err == nil {
				return
			} else if statusOf(err) != 503 {
				t.Fatalf("the retry: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Error("the retry never got an upload slot")
	})
}

// TestDeleteUserDeletesFiles: a user deleted permanently takes its messages, and the files
// it uploaded, with it; another user's files stay.
func TestDeleteUserDeletesFiles(t *testing.T) {
	backends(t, func(t *testing.T, base *env) {
		e := newFileEnv(t, base.backend, chat.Config{MaxFileSize: 1 << 20}, nil, httpapi.Options{})
		urls := map[string]string{}
		for _, from := range []string{"ann", "bob"} {
			to := map[string]string{"ann": "bob", "bob": "ann"}[from]
			body, ct := form(t, []string{"receiver", to, "receiverType", "user", "type", "file", "category", "message"}, "files[]", from+".txt", "from "+from)
			r := e.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": from, "Content-Type": ct}, body: body})
			var m struct {
				Data struct{ Data struct{ URL string } }
			}
			if json.Unmarshal(r.body, &m); r.status != 200 || m.Data.Data.URL == "" {
				t.Fatalf("%s's file: %d %s", from, r.status, r.body)
			}
			urls[from] = m.Data.Data.URL
		}
		if r := e.do(request{method: "DELETE", path: "/v3/users/ann", body: `{"permanent":true}`}); r.status != 200 {
			t.Fatalf("delete ann: %d %s", r.status, r.body)
		}
		if r, _ := get(t, urls["ann"], nil); r.StatusCode != 404 {
			t.Errorf("ann's file after her deletion: %d", r.StatusCode)
		}
		if r, b := get(t, urls["bob"], nil); r.StatusCode != 200 || string(b) != "from bob" {
			t.Errorf("bob's file after ann's deletion: %d %q", r.StatusCode, b)
		}
		if n := len(e.stored()); n != 1 {
			t.Errorf("%d files on disk, want bob's", n)
		}
	})
}
