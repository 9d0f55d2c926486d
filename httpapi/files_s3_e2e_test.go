package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	if len(srv.Files()) != 2 {
		t.Errorf("objects: %v", srv.Files())
	}
	// Deleted permanently through B: the object goes from the bucket, and A serves it no more.
	var sent struct{ Data struct{ ID json.Number } }
	json.Unmarshal(res.body, &sent)
	del, err := http.NewRequest("DELETE", nodeB+"/v3/messages/"+sent.Data.ID.String(), strings.NewReader(`{"permanent":true}`))
	if err != nil {
		t.Fatal(err)
	}
	del.Header.Set("apikey", a.full)
	del.Header.Set("onBehalfOf", "ann")
	del.Header.Set("Content-Type", "application/json")
	if r, err := http.DefaultClient.Do(del); err != nil || r.StatusCode != 200 {
		t.Fatalf("delete on B: %v %v", r, err)
	}
	if r, _ := get(t, m.Data.Data.URL, nil); r.StatusCode != 404 || len(srv.Files()) != 1 {
		t.Errorf("after the permanent delete: GET on A %d, objects %v", r.StatusCode, srv.Files())
	}
	stored := srv.Files()

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

// TestDirectUploadsOnS3 (issue 37): with Config.DirectUploads, the upload form is a real S3
// presigned POST to the bucket (versitygw), so the file's bytes never pass through natter; the
// store enforces the form (size, type, key, expiry). The send records the file after a HEAD
// shows the object, its size and the grant natter signed; a send naming a file that was not
// uploaded, or an object natter did not grant, is refused. Node B serves it from natter's URL.
func TestDirectUploadsOnS3(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	// The store checks the form's expiry against its own clock: natter's must be the real one.
	cfg := chat.Config{MaxFileSize: 1 << 20, DirectUploads: true, Now: time.Now}
	a := newFileEnv(t, "postgres", cfg, func(string) blobstore.Store { return openS3(t, srv) }, httpapi.Options{})
	cfg.Files = openS3(t, srv)
	nodeB := a.secondNode(cfg)
	sendJSON := func(atts ...client.FileAttachment) error {
		_, err := a.c.OnBehalfOf("ann").SendMessage(a.ctx(), client.SendMessageRequest{Receiver: "bob", ReceiverType: "user", Category: "message", Type: "image",
			Data: map[string]any{"attachments": atts}})
		return err
	}

	content := bytes.Repeat([]byte("\x89PNG-direct-"), 500)
	forms := a.presign("ann", map[string]client.UploadFileInfo{
		"p": {FileID: "p", Name: "cat.png", Size: int64(len(content)), MimeType: "image/png"},
		"q": {FileID: "q", Name: "q.txt", Size: 5, MimeType: "text/plain"},
	})
	p := forms["p"]
	if !strings.HasPrefix(p.Request.URL, srv.Endpoint()+"/"+s3test.Bucket) || p.Request.Body["key"] == "" || p.Request.Body["x-amz-signature"] == "" ||
		p.Request.Body["Content-Type"] != "image/png" || p.Attachment.URL == "" || !strings.HasPrefix(p.Attachment.URL, a.srv.URL+"/files/demo/") {
		t.Fatalf("a direct form: %+v", p)
	}
	// Sent before its file: refused, nothing written.
	before := a.snapshot()
	if err := sendJSON(p.Attachment); statusOf(err) != 400 {
		t.Errorf("a send before the upload: %v", err)
	}
	// The store refuses a file of another size.
	if _, err := a.plain.UploadFile(a.ctx(), p, "cat.png", bytes.NewReader(content[1:])); err == nil {
		t.Error("the bucket took a file of another size")
	}
	if a.snapshot() != before || len(srv.Files()) != 0 {
		t.Errorf("refusals wrote something: %v", srv.Files())
	}
	// Posted to the bucket, as the SDK's uploader does: natter sees no byte of it.
	got, err := a.plain.UploadFile(a.ctx(), p, "cat.png", bytes.NewReader(content))
	if err != nil || *got != p.Attachment {
		t.Fatalf("upload to the bucket: %+v %v", got, err)
	}
	// The records were written with the forms, unattached: the orphan sweep's until a send.
	if n := a.count(`SELECT COUNT(*) FROM files WHERE attached = 0`); n != 2 {
		t.Errorf("%d unattached records before the send", n)
	}
	if err := sendJSON(p.Attachment); err != nil {
		t.Fatalf("send: %v", err)
	}
	if n := a.count(`SELECT COUNT(*) FROM files WHERE uid = 'ann' AND mime_type = 'image/png' AND size = $1 AND attached = 1`, len(content)); n != 1 {
		t.Errorf("%d attached records after the send", n)
	}
	url := nodeB + strings.TrimPrefix(p.Attachment.URL, a.srv.URL)
	r, body := get(t, url, nil)
	if r.StatusCode != 200 || !bytes.Equal(body, content) || r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET on B: %d %v", r.StatusCode, r.Header)
	}
	if r, body := get(t, url, map[string]string{"Range": "bytes=12-23"}); r.StatusCode != 206 || !bytes.Equal(body, content[12:24]) {
		t.Errorf("range on B: %d %q", r.StatusCode, body)
	}
	// The same attachment again.
	if err := sendJSON(p.Attachment); err != nil {
		t.Errorf("a second send: %v", err)
	}
	// A key natter never granted: refused by the send's transaction, nothing written.
	before = a.snapshot()
	madeUp := p.Attachment
	madeUp.URL = a.srv.URL + "/files/demo/" + strings.Repeat("a", 32) + "/x.png"
	if err := sendJSON(madeUp); statusOf(err) != 400 {
		t.Errorf("a made-up file: %v", err)
	}
	if a.snapshot() != before {
		t.Error("a refused send wrote something")
	}
	// A form never used: the orphan sweep takes its record (and would take its object).
	unused := a.presign("ann", map[string]client.UploadFileInfo{"u": {FileID: "u", Name: "u.txt", Size: 3, MimeType: "text/plain"}})["u"]
	if n, err := a.svc.SweepOrphanFiles(a.ctx(), -time.Minute); err != nil || n != 2 {
		t.Errorf("sweep: %d files (q's and u's), %v", n, err)
	}
	if err := sendJSON(unused.Attachment); statusOf(err) != 400 {
		t.Errorf("a swept form's file: %v", err)
	}
	forms = a.presign("ann", map[string]client.UploadFileInfo{"q": {FileID: "q", Name: "q.txt", Size: 5, MimeType: "text/plain"}})

	// Uploaded, then the store goes down before the send: 503, nothing written.
	q := forms["q"]
	if _, err := a.plain.UploadFile(a.ctx(), q, "q.txt", strings.NewReader("12345")); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	before = a.snapshot()
	if err := sendJSON(q.Attachment); statusOf(err) != 503 {
		t.Errorf("a send, store down: %v", err)
	}
	if a.snapshot() != before {
		t.Error("a send the store could not confirm wrote something")
	}
	srv.Start()
	if err := sendJSON(q.Attachment); err != nil {
		t.Errorf("the send after the outage: %v", err)
	}
}

// TestUploadStreamsS3: 8 concurrent 50 MB uploads through natter to a bucket (the multipart
// send, whose size is not known ahead, so each goes as a multipart upload of 5 MiB parts):
// natter holds one part per upload, whatever the files' size. It logs the figures of
// docs/files.md: allocation, peak heap, MB/s and CPU per MB (this process: client and natter;
// versitygw is another process), for the upload and for a download. Not parallel, so that
// the figures are these uploads' alone.
func TestUploadStreamsS3(t *testing.T) {
	const size, n = 50_000_000, 8
	srv := s3test.Start(t)
	e := newFileEnv(t, "sqlite", chat.Config{MaxFileSize: size}, func(string) blobstore.Store { return openS3(t, srv) }, httpapi.Options{})
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the heap in use, sampled every 10 ms
		defer close(sampled)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	rss0 := procStatus(t, "VmRSS")
	var before, after runtimeMem
	before.read()
	cpu0 := cpuTime()
	start := time.Now()
	urls := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, pw := io.Pipe()
			mw := multipart.NewWriter(pw)
			go func() {
				for _, kv := range [][2]string{{"receiver", "bob"}, {"receiverType", "user"}, {"type", "file"}, {"category", "message"}} {
					mw.WriteField(kv[0], kv[1])
				}
				fw, _ := mw.CreateFormFile("files[]", fmt.Sprintf("big%d.bin", i))
				io.Copy(fw, io.LimitReader(zeros{}, size))
				pw.CloseWithError(mw.Close())
			}()
			req, _ := http.NewRequest("POST", e.srv.URL+"/v3/messages", pr)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("apikey", e.full)
			req.Header.Set("onBehalfOf", "ann")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			var m struct {
				Data struct{ Data struct{ URL string } }
			}
			if json.NewDecoder(res.Body).Decode(&m); res.StatusCode != 200 {
				t.Errorf("upload %d: %d", i, res.StatusCode)
			}
			urls[i] = m.Data.Data.URL
		}()
	}
	wg.Wait()
	took, cpu := time.Since(start), cpuTime()-cpu0
	after.read()
	close(stop)
	<-sampled
	if t.Failed() {
		return
	}
	mb := float64(n*size) / 1e6
	allocated := after.total - before.total
	t.Logf("%d concurrent %d MB uploads to S3: %.0f MB/s, %.1f ms CPU per MB (client and natter), %d MiB allocated in all, peak heap %d MiB (%d MiB before), RSS %d MiB before, peak %d MiB",
		n, size/1_000_000, mb/took.Seconds(), float64(cpu.Milliseconds())/mb, allocated>>20, peak.Load()>>20, base.HeapInuse>>20, rss0>>10, procStatus(t, "VmHWM")>>10)
	if allocated > 150<<20 {
		t.Errorf("%d MiB allocated to receive %d files of %d bytes: buffered, not streamed", allocated>>20, n, size)
	}

	// A download, from the bucket through natter.
	cpu0, start = cpuTime(), time.Now()
	res, err := http.Get(urls[0])
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	took, cpu = time.Since(start), cpuTime()-cpu0
	if got != size {
		t.Fatalf("download: %d bytes", got)
	}
	t.Logf("one %d MB download from S3: %.0f MB/s, %.1f ms CPU per MB", size/1_000_000, float64(size)/1e6/took.Seconds(), float64(cpu.Milliseconds())/(float64(size)/1e6))
}

// procStatus is a figure of /proc/self/status in KiB (VmRSS, VmHWM: the peak RSS), or 0
// where there is none.
func procStatus(t *testing.T, name string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return 0
}
