package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/httpapi"
	"github.com/natter-chat/natter/internal/blobstore"
	"github.com/natter-chat/natter/internal/s3test"
)

// openS3 is a node's own client of srv's bucket, as each natter process has.
func openS3(t *testing.T, srv *s3test.Server) *blobstore.S3 {
	t.Helper()
	s, err := blobstore.OpenS3(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFilesAcrossNodesOnS3 (issue 37): two natter nodes on one PostgreSQL database and one
// S3-compatible server (versitygw, a real one, started by the test). Files uploaded through
// node A both ways (an upload form, larger than a part so that it goes as a multipart upload;
// a multipart send) are served by node B with their exact bytes, type and ranges. Over the
// cap is 413 with nothing stored. With the store down, an upload is 503 with Retry-After and
// writes nothing, serving is 503, and the nodes stay healthy; once the store is back,
// everything works again.
func TestFilesAcrossNodesOnS3(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	const maxFile = 12 << 20
	a := newFileEnv(t, "postgres", chat.Config{MaxFileSize: maxFile}, func(string) blobstore.Store { return openS3(t, srv) }, httpapi.Options{})
	nodeB := a.secondNode(chat.Config{Files: openS3(t, srv), MaxFileSize: maxFile})
	onB := func(u string) string { // a file URL names the host the upload came to: ask B
		t.Helper()
		rest, ok := strings.CutPrefix(u, a.srv.URL)
		if !ok {
			t.Fatalf("file URL %q is not on node A (%s)", u, a.srv.URL)
		}
		return nodeB + rest
	}

	// An upload form, then the send, through A: 6 MiB and some, more than one 5 MiB part.
	content := bytes.Repeat([]byte("0123456789abcdef"), (6<<20)/16+1000)
	forms := a.presign("ann", map[string]client.UploadFileInfo{"v": {FileID: "v", Name: "clip.mp4", Size: int64(len(content)), MimeType: "video/mp4"}})
	vf := forms["v"]
	if !strings.HasPrefix(vf.Request.URL, a.srv.URL+"/files/demo") {
		t.Errorf("the form posts to %s", vf.Request.URL)
	}
	att, err := a.plain.UploadFile(a.ctx(), vf, "clip.mp4", bytes.NewReader(content))
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	if _, err := a.c.OnBehalfOf("ann").SendMessage(a.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "video",
		Data: map[string]any{"attachments": []client.FileAttachment{*att}}}); err != nil {
		t.Fatal(err)
	}
	r, body := get(t, onB(att.URL), nil)
	if r.StatusCode != 200 || !bytes.Equal(body, content) || r.Header.Get("Content-Type") != "video/mp4" || r.Header.Get("Content-Length") != fmt.Sprint(len(content)) {
		t.Fatalf("GET on B: %d %v (%d bytes)", r.StatusCode, r.Header, len(body))
	}
	// Ranges, as a video player seeks: within the first part, across the parts' seam, to the end.
	for _, rg := range [][2]int{{16, 31}, {5<<20 - 10, 5<<20 + 10}, {len(content) - 7, len(content) - 1}} {
		r, body := get(t, onB(att.URL), map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", rg[0], rg[1])})
		if r.StatusCode != 206 || !bytes.Equal(body, content[rg[0]:rg[1]+1]) || r.Header.Get("Content-Range") != fmt.Sprintf("bytes %d-%d/%d", rg[0], rg[1], len(content)) {
			t.Errorf("range %v on B: %d %v %q", rg, r.StatusCode, r.Header, body)
		}
	}
	if r, _ := get(t, onB(att.URL), map[string]string{"If-None-Match": r.Header.Get("ETag")}); r.StatusCode != 304 {
		t.Errorf("If-None-Match on B: %d", r.StatusCode)
	}

	// A multipart send through A.
	send := func(name, content string) response {
		body, ct := form(t, []string{"receiver", "bob", "receiverType", "user", "type", "file", "category", "message"}, "files[]", name, content)
		return a.do(request{method: "POST", path: "/v3/messages", headers: map[string]string{"onBehalfOf": "ann", "Content-Type": ct}, body: body})
	}
	var m struct {
		Data struct {
			Data struct {
				URL         string
				Attachments []client.FileAttachment
			}
		}
	}
	res := send("notes.txt", "plain words")
	if json.Unmarshal(res.body, &m); res.status != 200 || len(m.Data.Data.Attachments) != 1 {
		t.Fatalf("multipart send: %d %s", res.status, res.body)
	}
	if r, body := get(t, onB(m.Data.Data.URL), nil); r.StatusCode != 200 || string(body) != "plain words" || r.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("the sent file on B: %d %v %q", r.StatusCode, r.Header, body)
	}
	stored := srv.Files()
	if len(stored) != 2 {
		t.Errorf("objects: %v", stored)
	}

	// Over the cap: 413, nothing stored, nothing written.
	before := a.snapshot()
	big := a.do(request{method: "POST", path: "/v3/files/upload-url", headers: map[string]string{"onBehalfOf": "ann"},
		body: fmt.Sprintf(`{"files":{"b":{"fileId":"b","name":"big.bin","size":%d}}}`, maxFile+1)})
	if big.status != 413 {
		t.Errorf("a form for too large a file: %d %s", big.status, big.body)
	}
	if res := send("big.bin", strings.Repeat("x", maxFile+1)); res.status != 413 {
		t.Errorf("a multipart send over the cap: %d %s", res.status, res.body)
	}
	if got := srv.Files(); len(got) != len(stored) || a.snapshot() != before {
		t.Errorf("over the cap stored or wrote something: %v", got)
	}

	// The store down: uploads are 503 with Retry-After and write nothing; files are 503 too.
	srv.Stop()
	before = a.snapshot()
	res = send("down.txt", "lost")
	if res.status != 503 || res.code != "ERR_SERVICE_UNAVAILABLE" || res.header.Get("Retry-After") == "" {
		t.Errorf("a multipart send, store down: %d %s Retry-After %q", res.status, res.body, res.header.Get("Retry-After"))
	}
	f2 := a.presign("ann", map[string]client.UploadFileInfo{"d": {FileID: "d", Name: "d.txt", Size: 4, MimeType: "text/plain"}})["d"]
	if _, err := a.plain.UploadFile(a.ctx(), f2, "d.txt", strings.NewReader("lost")); statusOf(err) != 503 {
		t.Errorf("an upload form, store down: %v", err)
	}
	if r, _ := get(t, onB(att.URL), nil); r.StatusCode != 503 || r.Header.Get("Retry-After") == "" {
		t.Errorf("GET on B, store down: %d %v", r.StatusCode, r.Header)
	}
	if a.snapshot() != before {
		t.Error("a send whose file could not be stored wrote something")
	}
	for _, base := range []string{a.srv.URL, nodeB} {
		if r, _ := get(t, base+"/healthz", nil); r.StatusCode != 200 {
			t.Errorf("%s/healthz, store down: %d", base, r.StatusCode)
		}
	}

	// Back: the form not used, the sends, the files.
	srv.Start()
	if _, err := a.plain.UploadFile(a.ctx(), f2, "d.txt", strings.NewReader("kept")); err != nil {
		t.Errorf("the form after the outage: %v", err)
	}
	if res := send("up.txt", "again"); res.status != 200 {
		t.Errorf("a send after the outage: %d %s", res.status, res.body)
	}
	if r, body := get(t, onB(att.URL), map[string]string{"Range": "bytes=0-15"}); r.StatusCode != 206 || string(body) != "0123456789abcdef" {
		t.Errorf("GET on B after the outage: %d %q", r.StatusCode, body)
	}
	if got := srv.Files(); len(got) != len(stored)+2 {
		t.Errorf("objects after the outage: %v", got)
	}
}
