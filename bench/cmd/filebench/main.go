// Command filebench measures natter's file uploads and downloads (docs/files.md) against a
// natter serve process over loopback: MB/s and natter's CPU per MB for an upload through an
// upload form (POST /v3/files/upload-url, then the form), a multipart send (POST
// /v3/messages with files[]), a plain download and Range downloads; then natter's peak
// resident memory while it receives -rss-uploads uploads of -rss-size at once.
//
// natter's CPU is its own: utime+stime from /proc/<pid>/stat around each phase (the counters
// getrusage reports), and its rusage when it exits for the whole run. Its peak memory is
// VmHWM from /proc/<pid>/status, reset before the phase (clear_refs 5), with VmRSS sampled
// every 10 ms beside it; the exit's ru_maxrss is the whole run's peak.
//
// The storage is natter's default (a directory beside the SQLite file) unless flags say
// otherwise: -natter-flag, repeatable, adds a flag to natter serve (--files-dir=/mnt/x, or
// an object store's flags), as does anything after "--".
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/natter-chat/natter/bench/internal/natterproc"
)

type flags []string

func (f *flags) String() string     { return strings.Join(*f, " ") }
func (f *flags) Set(v string) error { *f = append(*f, v); return nil }

const (
	key   = "f11ebe7c4a11d00dfeedbe7c4a11d00dfeedbe7c"
	appID = "filebench"
	mb    = 1 << 20
)

func main() {
	bin := flag.String("natter", "", "the natter binary (required)")
	db := flag.String("database", "", "natter's --database (default: a fresh SQLite file)")
	size := flag.Int("size", 8, "MiB per file in the throughput phases")
	count := flag.Int("count", 24, "files per throughput phase")
	conns := flag.Int("conns", 4, "requests at once in the throughput phases")
	rangeSize := flag.Int("range", 256, "KiB per Range request")
	rssUploads := flag.Int("rss-uploads", 8, "uploads at once for the memory figure")
	rssSize := flag.Int("rss-size", 50, "MiB per upload for the memory figure")
	out := flag.String("out", "", "also write the report as Markdown here")
	var extra flags
	flag.Var(&extra, "natter-flag", "a flag for natter serve, repeatable (--files-dir=/x; storage flags)")
	flag.Parse()
	extra = append(extra, flag.Args()...) // after "--"
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "filebench: -natter is required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c := config{size: int64(*size) * mb, count: *count, conns: *conns, rangeSize: int64(*rangeSize) << 10,
		rssUploads: *rssUploads, rssSize: int64(*rssSize) * mb, extra: extra}
	report, err := run(ctx, *bin, *db, c)
	fmt.Print(report)
	if err != nil {
		fmt.Fprintln(os.Stderr, "filebench:", err)
		os.Exit(1)
	}
	if *out != "" {
		if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "filebench:", err)
			os.Exit(1)
		}
	}
}

type config struct {
	size         int64
	count, conns int
	rangeSize    int64
	rssUploads   int
	rssSize      int64
	extra        []string // natter serve's flags
}

func run(ctx context.Context, bin, db string, c config) (string, error) {
	tmp, err := os.MkdirTemp("", "filebench-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if db == "" {
		db = "sqlite:" + filepath.Join(tmp, "natter.db")
	}
	var log bytes.Buffer
	// The S3 secret is the one setting natter takes only from its environment (never a flag,
	// which the process list shows): passed on, as the storage flags are.
	var env []string
	if v, ok := os.LookupEnv("NATTER_S3_SECRET_KEY"); ok {
		env = append(env, "NATTER_S3_SECRET_KEY="+v)
	}
	p, err := natterproc.Start(ctx, natterproc.Spec{Bin: bin, Dir: tmp, DB: db, Key: key, AppID: appID, Args: c.extra, Env: env, OwnEnv: true, Log: &log})
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, log.String())
	}
	stopped := false
	defer func() {
		if !stopped {
			p.Stop(10 * time.Second)
		}
	}()
	n := &natter{base: p.Base, pid: p.Cmd.Process.Pid}
	for _, u := range []string{"alice", "bob"} {
		if err := n.json(ctx, "POST", "/v3/users", "", map[string]any{"uid": u, "name": u}, nil); err != nil {
			return "", fmt.Errorf("create %s: %w\n%s", u, err, log.String())
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## filebench %s\n\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "%d CPUs; load average at the start %s (other work on the machine slows every phase).\n\n", runtime.NumCPU(), loadavg())
	fmt.Fprintf(&b, "natter flags: `%s`; database: %s; %d files of %d MiB per phase, %d at once; Range requests of %d KiB. "+
		"CPU is natter's own (utime+stime), per MiB moved.\n\n",
		strings.Join(append([]string{"(defaults)"}, c.extra...), " "), strings.SplitN(db, ":", 2)[0], c.count, c.size/mb, c.conns, c.rangeSize>>10)
	fmt.Fprintf(&b, "| phase | MiB | wall s | MiB/s | natter CPU s | CPU ms per MiB |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
	row := func(name string, r result) {
		mib := float64(r.bytes) / mb
		fmt.Fprintf(&b, "| %s | %.0f | %.2f | %.0f | %.2f | %.2f |\n", name, mib, r.wall.Seconds(), mib/r.wall.Seconds(), r.cpu.Seconds(),
			float64(r.cpu.Milliseconds())/mib)
	}
	// Memory first, on the fresh process: for each way in, settle, reset the high-water
	// mark, then the concurrent uploads, with VmRSS sampled beside them.
	var memText strings.Builder
	memPhase := func(way string, upload func(ctx context.Context, name string, size int64) (string, error)) error {
		time.Sleep(2 * time.Second)
		before := n.status("VmRSS:")
		reset := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", n.pid), []byte("5"), 0)
		var sampled atomic.Int64
		stop := make(chan struct{})
		go func() {
			t := time.NewTicker(10 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					if v := n.status("VmRSS:"); v > sampled.Load() {
						sampled.Store(v)
					}
				}
			}
		}()
		r, err := n.phase(c.rssUploads, c.rssUploads, func(i int) (int64, error) {
			_, err := upload(ctx, fmt.Sprintf("big-%d.bin", i), c.rssSize)
			return c.rssSize, err
		})
		close(stop)
		if err != nil {
			return fmt.Errorf("concurrent uploads, %s: %w", way, err)
		}
		row(fmt.Sprintf("upload, %s, %d × %d MiB at once", way, c.rssUploads, c.rssSize/mb), r)
		hwm := n.status("VmHWM:")
		fmt.Fprintf(&memText, "natter's memory during %d concurrent %d MiB uploads, %s: resident %.1f MiB before, peak %.1f MiB sampled every 10 ms",
			c.rssUploads, c.rssSize/mb, way, float64(before)/1024, float64(sampled.Load())/1024)
		if reset == nil {
			fmt.Fprintf(&memText, ", peak %.1f MiB by VmHWM (reset before the phase)", float64(hwm)/1024)
		} else {
			fmt.Fprintf(&memText, " (VmHWM could not be reset: %v; whole-run VmHWM %.1f MiB)", reset, float64(hwm)/1024)
		}
		fmt.Fprintf(&memText, ".\n")
		return nil
	}
	if err := memPhase("form", n.formUpload); err != nil {
		return b.String(), err
	}
	if err := memPhase("multipart", n.multipartSend); err != nil {
		return b.String(), err
	}
	var r result
	var urls []string
	var mu sync.Mutex
	keep := func(u string) { mu.Lock(); urls = append(urls, u); mu.Unlock() }

	r, err = n.phase(c.count, c.conns, func(i int) (int64, error) {
		u, err := n.formUpload(ctx, fmt.Sprintf("form-%d.bin", i), c.size)
		keep(u)
		return c.size, err
	})
	if err != nil {
		return b.String(), fmt.Errorf("form uploads: %w", err)
	}
	row("upload, form (upload-url + POST /files/{app})", r)
	r, err = n.phase(c.count, c.conns, func(i int) (int64, error) {
		u, err := n.multipartSend(ctx, fmt.Sprintf("multi-%d.bin", i), c.size)
		keep(u)
		return c.size, err
	})
	if err != nil {
		return b.String(), fmt.Errorf("multipart sends: %w", err)
	}
	row("upload, multipart send (POST /v3/messages)", r)
	r, err = n.phase(len(urls), c.conns, func(i int) (int64, error) { return n.download(ctx, urls[i], "") })
	if err != nil {
		return b.String(), fmt.Errorf("downloads: %w", err)
	}
	row("download, whole file", r)
	ranges := int(int64(len(urls)) * c.size / c.rangeSize)
	r, err = n.phase(ranges, c.conns, func(i int) (int64, error) {
		off := mrand.Int64N(c.size - c.rangeSize)
		return n.download(ctx, urls[i%len(urls)], fmt.Sprintf("bytes=%d-%d", off, off+c.rangeSize-1))
	})
	if err != nil {
		return b.String(), fmt.Errorf("range downloads: %w", err)
	}
	row(fmt.Sprintf("download, Range of %d KiB (%d requests)", c.rangeSize>>10, ranges), r)

	b.WriteString("\n" + memText.String())
	fmt.Fprintf(&b, "Load average at the end: %s.\n", loadavg())
	// The whole run, from the kernel's account of the exited process.
	p.Stop(30 * time.Second)
	stopped = true
	if ru, ok := p.Cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		fmt.Fprintf(&b, "natter's rusage at exit: %.2f s CPU (user %.2f, system %.2f), ru_maxrss %.1f MiB over the whole run.\n",
			cpu.Seconds(), time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds(), float64(ru.Maxrss)/1024)
	}
	return b.String(), nil
}

type natter struct {
	base string
	pid  int
}

var hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}, Timeout: 10 * time.Minute}

type result struct {
	bytes int64
	wall  time.Duration
	cpu   time.Duration
}

// phase runs job(0…count-1), conns at once, and measures the bytes moved, the wall time and
// natter's CPU.
func (n *natter) phase(count, conns int, job func(i int) (int64, error)) (result, error) {
	cpu0 := n.cpu()
	t0 := time.Now()
	var next, moved atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				k, err := job(i)
				if err != nil {
					once.Do(func() { first = err })
					return
				}
				moved.Add(k)
			}
		}()
	}
	wg.Wait()
	return result{bytes: moved.Load(), wall: time.Since(t0), cpu: n.cpu() - cpu0}, first
}

// cpu is natter's utime+stime so far (/proc/<pid>/stat, in clock ticks of 10 ms).
func (n *natter) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n.pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// loadavg is /proc/loadavg's 1, 5 and 15 minute figures.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// status reads a KiB figure of /proc/<pid>/status.
func (n *natter) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

func (n *natter) json(ctx context.Context, method, path, onBehalfOf string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, method, n.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	n.auth(req, onBehalfOf)
	return do(req, out)
}

func (n *natter) auth(req *http.Request, onBehalfOf string) {
	req.Header.Set("apikey", key)
	req.Header.Set("appId", appID)
	if onBehalfOf != "" {
		req.Header.Set("onBehalfOf", onBehalfOf)
	}
}

func do(req *http.Request, out any) error {
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != 200 {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// content is 1 MiB of random bytes that every file repeats: the client streams files of any
// size from it, so its own memory stays flat too.
var content = func() []byte {
	b := make([]byte, mb)
	rand.Read(b)
	return b
}()

type repeat struct{ left, off int64 }

func (r *repeat) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.left)]
	k := 0
	for k < len(p) {
		c := copy(p[k:], content[r.off%mb:])
		k += c
		r.off += int64(c)
	}
	r.left -= int64(k)
	return k, nil
}

// formBody streams a multipart body: fields, then the file part name of size bytes.
func formBody(fields [][2]string, part, name string, size int64) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for _, f := range fields {
			if err := mw.WriteField(f[0], f[1]); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		w, err := mw.CreateFormFile(part, name)
		if err == nil {
			_, err = io.Copy(w, &repeat{left: size})
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, mw.FormDataContentType()
}

// formUpload uploads one file as the UI Kit does: an upload form, then the form; it returns
// the file's URL.
func (n *natter) formUpload(ctx context.Context, name string, size int64) (string, error) {
	var forms map[string]struct {
		Request struct {
			URL  string            `json:"url"`
			Body map[string]string `json:"body"`
		} `json:"request"`
		Attachment struct {
			URL string `json:"url"`
		} `json:"attachment"`
	}
	var env struct{ Data any }
	env.Data = &forms
	err := n.json(ctx, "POST", "/v3/files/upload-url", "alice", map[string]any{"receiver": "bob", "receiverType": "user",
		"files": map[string]any{"f": map[string]any{"fileId": "f", "name": name, "size": size, "mimeType": "application/octet-stream"}}}, &env)
	if err != nil {
		return "", err
	}
	f := forms["f"]
	body, ct := formBody([][2]string{{"policy", f.Request.Body["policy"]}, {"signature", f.Request.Body["signature"]}}, "file", name, size)
	req, _ := http.NewRequestWithContext(ctx, "POST", f.Request.URL, body)
	req.Header.Set("Content-Type", ct)
	return f.Attachment.URL, do(req, nil)
}

// multipartSend sends a file message as SDK 3 does, the file in the send; it returns the
// file's URL.
func (n *natter) multipartSend(ctx context.Context, name string, size int64) (string, error) {
	body, ct := formBody([][2]string{{"receiver", "bob"}, {"receiverType", "user"}, {"category", "message"}, {"type", "file"}, {"data", "{}"}},
		"files[]", name, size)
	req, _ := http.NewRequestWithContext(ctx, "POST", n.base+"/v3/messages", body)
	req.Header.Set("Content-Type", ct)
	n.auth(req, "alice")
	var m struct {
		Data struct {
			Data struct {
				URL string `json:"url"`
			} `json:"data"`
		} `json:"data"`
	}
	err := do(req, &m)
	return m.Data.Data.URL, err
}

// download GETs a file (a range of it when rng is set) and counts its bytes.
func (n *natter) download(ctx context.Context, url, rng string) (int64, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	want := http.StatusOK
	if rng != "" {
		req.Header.Set("Range", rng)
		want = http.StatusPartialContent
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	k, err := io.Copy(io.Discard, res.Body)
	if err == nil && res.StatusCode != want {
		err = fmt.Errorf("GET %s (%s): %d", url, rng, res.StatusCode)
	}
	return k, err
}
