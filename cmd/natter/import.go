package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/natter-chat/natter/chat"
	"github.com/natter-chat/natter/client"
	"github.com/natter-chat/natter/dataimport"
	"github.com/natter-chat/natter/sqlstore"
)

// natter import (docs/import.md): a JSON Lines export, one item per line with a "kind", sent
// in batches through the data import API (--url) or straight into a database (--database),
// with progress, a state file to resume from, and a summary.

const importUsage = `natter import — import users, groups, members and messages from a JSON Lines file

Usage:
  natter import --url URL --key KEY [--app ID] [flags] FILE
  natter import --database URL --app ID [flags] FILE

Each line of FILE is one object with a "kind" ("user", "group", "member", "message") and the
fields of the hosted data import API's item (docs/import.md); a line may also be a whole
hosted import body ({"users": {"<uid>": {…}, …}}). Consecutive items of one kind go in one
batch. Put users first, then groups, members and messages, each conversation oldest first.

--url sends each batch to POST /v3/data_import/<kind> of a natter server (the API key from
--key or NATTER_IMPORT_KEY; 60 requests a minute, waited for on 429). --database writes
through the same service into the database directly, without the rate limit; on SQLite it
refuses to run while a natter serve holds the file.

Importing is idempotent: an item imported before is skipped. --state records the byte offset
of the last batch the server acknowledged; run the same command again to resume from it.
`

type importOptions struct {
	url, key, app, database, state string
	batch, maxBatches              int
	every                          time.Duration
	file                           string
}

func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("natter import", flag.ContinueOnError)
	var o importOptions
	fs.StringVar(&o.url, "url", "", "a natter server's base URL, e.g. http://127.0.0.1:8080 (HTTP mode)")
	fs.StringVar(&o.key, "key", "", "a fullAccess API key for --url (default: NATTER_IMPORT_KEY)")
	fs.StringVar(&o.app, "app", "", "the app id (required with --database; with --url sent as the appId header)")
	fs.StringVar(&o.database, "database", "", "sqlite:PATH or postgres://… to write into directly (direct mode)")
	fs.StringVar(&o.state, "state", "", "state file to resume from and record progress in (default: FILE.state)")
	fs.IntVar(&o.batch, "batch", chat.MaxImportItems, "items per batch, 1 to 1000")
	fs.IntVar(&o.maxBatches, "max-batches", 0, "stop after this many batches (0: no limit); rerun to continue")
	fs.DurationVar(&o.every, "progress-every", 5*time.Second, "how often to print a progress line when not on a terminal")
	// The file comes last, after the flags.
	var rest []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && (i == 0 || !needsValue(args[i-1])) {
			rest = append(rest, args[i:]...)
			args = args[:i]
			break
		}
	}
	if err := parseFlags(fs, importUsage, "", args, stdout, stderr); err != nil {
		return err
	}
	if len(rest) != 1 {
		fmt.Fprintf(stderr, "natter import: one FILE is required, after the flags\n\n%s", importUsage)
		return errUsage
	}
	o.file = rest[0]
	if o.key == "" {
		o.key = getenv("NATTER_IMPORT_KEY")
	}
	switch {
	case (o.url == "") == (o.database == ""):
		fmt.Fprintln(stderr, "natter import: give one of --url and --database")
		return errUsage
	case o.url != "" && o.key == "":
		fmt.Fprintln(stderr, "natter import: --url needs --key or NATTER_IMPORT_KEY")
		return errUsage
	case o.database != "" && o.app == "":
		fmt.Fprintln(stderr, "natter import: --database needs --app")
		return errUsage
	case o.batch < 1 || o.batch > chat.MaxImportItems:
		fmt.Fprintf(stderr, "natter import: --batch must be 1 to %d\n", chat.MaxImportItems)
		return errUsage
	}
	if o.state == "" {
		o.state = o.file + ".state"
	}
	var send sender
	if o.url != "" {
		opts := []client.Option{client.WithHTTPClient(&http.Client{Timeout: 2 * time.Minute})}
		if o.app != "" {
			opts = append(opts, client.WithHeader("appId", o.app))
		}
		send = httpSender{client.New(strings.TrimRight(o.url, "/"), o.key, opts...), stderr}
	} else {
		db, err := sqlstore.Open(ctx, o.database, sqlstore.Options{})
		if err != nil {
			return err
		}
		defer db.Close()
		svc := chat.New(db, chat.Config{StatsFlushInterval: -1})
		p, err := svc.OperatorPrincipal(ctx, o.app)
		if err != nil {
			return fmt.Errorf("import: %s", describe(err, nil))
		}
		send = dbSender{svc, p}
	}
	return runImport(ctx, o, send, stdout, stderr)
}

// importBatchBytes ends a batch early when its items add up to this many bytes, well within
// the server's 16 MiB cap on an import body (dataimport.MaxBodyBytes).
const importBatchBytes = 8 << 20

// needsValue reports whether a flag argument takes the next argument as its value.
func needsValue(a string) bool {
	if !strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
		return false
	}
	switch strings.TrimLeft(a, "-") {
	case "h", "help":
		return false
	}
	return true
}

// sender imports one batch and answers per item.
type sender interface {
	send(ctx context.Context, kind string, items []dataimport.Item) ([]dataimport.Outcome, error)
}

type dbSender struct {
	svc *chat.Service
	p   chat.Principal
}

func (d dbSender) send(ctx context.Context, kind string, items []dataimport.Item) ([]dataimport.Outcome, error) {
	return dataimport.Run(context.WithoutCancel(ctx), d.svc, d.p, kind, items)
}

type httpSender struct {
	c      *client.Client
	stderr io.Writer
}

func (h httpSender) send(ctx context.Context, kind string, items []dataimport.Item) ([]dataimport.Outcome, error) {
	batch := make([]client.ImportItem, len(items))
	for i, it := range items {
		batch[i] = client.ImportItem{Key: it.Key, Item: it.Raw}
	}
	for attempt := 0; ; attempt++ {
		res, err := h.c.Import(context.WithoutCancel(ctx), kind, batch)
		var ce *client.Error
		// A 429 is waited out as long as it takes (the limit resets every minute); a 5xx is
		// retried a few times, then the import stops with its state saved.
		if errors.As(err, &ce) && (ce.Status == http.StatusTooManyRequests && attempt < 1000 || ce.Status >= 500 && attempt < 5) {
			wait := time.Duration(min(attempt+1, 10)) * time.Second
			if s, perr := strconv.Atoi(ce.Header.Get("Retry-After")); perr == nil && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err != nil {
			return nil, err
		}
		out := make([]dataimport.Outcome, 0, len(items))
		for _, it := range items {
			r, ok := res[it.Key]
			switch {
			case !ok:
				out = append(out, dataimport.Outcome{Key: it.Key, Err: errors.New("no answer for this key")})
			case r.Success:
				out = append(out, dataimport.Outcome{Key: it.Key, Skipped: r.Skipped})
			default:
				msg := "refused"
				if r.Error != nil {
					msg = r.Error.Code + ": " + r.Error.Message
				}
				out = append(out, dataimport.Outcome{Key: it.Key, Err: errors.New(msg)})
			}
		}
		return out, nil
	}
}

// importState is the state file: where the last acknowledged batch ended, and the counts so
// far.
type importState struct {
	File   string                  `json:"file"`
	Size   int64                   `json:"size"`
	Offset int64                   `json:"offset"`
	Counts map[string]*importCount `json:"counts"`
}

type importCount struct {
	Imported int `json:"imported"`
	Skipped  int `json:"skipped"`
	Failed   int `json:"failed"`
}

// kinds maps a line's "kind" to the API's path segment.
var importKinds = map[string]string{"user": client.ImportUsers, "group": client.ImportGroups, "member": client.ImportMembers, "message": client.ImportMessages}

// keyFields is each kind's key field, and for members the two it may be made of.
func itemKey(kind string, obj map[string]json.RawMessage) string {
	str := func(k string) string {
		var s string
		json.Unmarshal(obj[k], &s)
		return s
	}
	switch kind {
	case client.ImportUsers:
		return str("uid")
	case client.ImportGroups:
		return str("guid")
	case client.ImportMembers:
		if id := str("memberId"); id != "" {
			return id
		}
		return str("guid") + "_member_" + str("uid")
	}
	return str("muid")
}

func runImport(ctx context.Context, o importOptions, send sender, stdout, stderr io.Writer) error {
	f, err := os.Open(o.file)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	st := importState{File: o.file, Size: fi.Size(), Counts: map[string]*importCount{}}
	if b, err := os.ReadFile(o.state); err == nil {
		var prev importState
		if json.Unmarshal(b, &prev) == nil && prev.Offset <= fi.Size() && prev.Offset >= 0 {
			st.Offset = prev.Offset
			if prev.Counts != nil {
				st.Counts = prev.Counts
			}
			if st.Offset > 0 {
				fmt.Fprintf(stderr, "natter import: resuming %s at byte %d of %d (%s)\n", o.file, st.Offset, fi.Size(), o.state)
			}
		}
	}
	if _, err := f.Seek(st.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for _, k := range []string{client.ImportUsers, client.ImportGroups, client.ImportMembers, client.ImportMessages} {
		if st.Counts[k] == nil {
			st.Counts[k] = &importCount{}
		}
	}
	run := map[string]*importCount{}
	for k := range st.Counts {
		run[k] = &importCount{}
	}
	prog := newProgress(stderr, fi.Size(), st.Offset, o.every)
	start := time.Now()
	rd := bufio.NewReaderSize(f, 1<<20)
	offset := st.Offset // where the next line starts
	var kind string
	var batch []dataimport.Item
	var batchBytes int
	var failures int
	batches := 0
	flush := func(end int64) error {
		if len(batch) == 0 {
			st.Offset = end
			return nil
		}
		res, err := send.send(ctx, kind, batch)
		if err != nil {
			return err
		}
		for _, r := range res {
			c, all := run[kind], st.Counts[kind]
			switch {
			case r.Err != nil:
				c.Failed++
				all.Failed++
				if failures++; failures <= 20 {
					fmt.Fprintf(stderr, "natter import: %s %q: %s\n", strings.TrimSuffix(kind, "s"), r.Key, errText(r.Err))
				}
			case r.Skipped:
				c.Skipped++
				all.Skipped++
			default:
				c.Imported++
				all.Imported++
			}
		}
		st.Offset = end
		if err := saveState(o.state, st); err != nil {
			return err
		}
		prog.add(len(batch), end)
		batch, batchBytes = batch[:0], 0
		batches++
		return nil
	}
	lineNo := 0
	for {
		if ctx.Err() != nil || (o.maxBatches > 0 && batches >= o.maxBatches) {
			break
		}
		line, rerr := rd.ReadBytes('\n')
		lineStart := offset
		offset += int64(len(line))
		lineNo++
		if t := bytes.TrimSpace(line); len(t) > 0 {
			items, k, err := parseLine(t)
			if err != nil {
				return fmt.Errorf("import: %s at byte %d: %v", o.file, lineStart, err)
			}
			for _, it := range items {
				if (k != kind && len(batch) > 0) || len(batch) >= o.batch || (len(batch) > 0 && batchBytes+len(it.Raw) > importBatchBytes) {
					if err := flush(lineStart); err != nil {
						return importStopped(err, o, st, stderr)
					}
					if ctx.Err() != nil || (o.maxBatches > 0 && batches >= o.maxBatches) {
						break
					}
				}
				kind = k
				batch = append(batch, it)
				batchBytes += len(it.Raw) + len(it.Key) + 8
			}
			if ctx.Err() != nil || (o.maxBatches > 0 && batches >= o.maxBatches) {
				break
			}
		}
		if rerr == io.EOF {
			if err := flush(offset); err != nil {
				return importStopped(err, o, st, stderr)
			}
			break
		}
		if rerr != nil {
			return fmt.Errorf("import: %w", rerr)
		}
	}
	prog.done()
	elapsed := time.Since(start)
	total := 0
	fmt.Fprintf(stdout, "%-9s %10s %10s %10s\n", "kind", "imported", "skipped", "failed")
	for _, k := range []string{client.ImportUsers, client.ImportGroups, client.ImportMembers, client.ImportMessages} {
		c := run[k]
		total += c.Imported + c.Skipped + c.Failed
		fmt.Fprintf(stdout, "%-9s %10d %10d %10d\n", k, c.Imported, c.Skipped, c.Failed)
	}
	rate := float64(total) / max(elapsed.Seconds(), 1e-9)
	fmt.Fprintf(stdout, "%d items in %s, %.0f items/s\n", total, elapsed.Round(time.Millisecond), rate)
	if st.Offset < st.Size {
		fmt.Fprintf(stdout, "stopped at byte %d of %d; run the same command again to continue (%s)\n", st.Offset, st.Size, o.state)
		if ctx.Err() != nil {
			return errors.New("import interrupted")
		}
	}
	return nil
}

func errText(err error) string {
	var ce *chat.Error
	if errors.As(err, &ce) {
		return string(ce.Code) + ": " + describe(err, nil)
	}
	return err.Error()
}

func importStopped(err error, o importOptions, st importState, stderr io.Writer) error {
	fmt.Fprintf(stderr, "natter import: stopped at byte %d of %d; run the same command again to resume (%s)\n", st.Offset, st.Size, o.state)
	return fmt.Errorf("import: %s", errText(err))
}

// parseLine reads one line: an item with its kind, or a whole hosted import body.
func parseLine(line []byte) ([]dataimport.Item, string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, "", fmt.Errorf("not a JSON object: %v", err)
	}
	if raw, ok := obj["kind"]; ok {
		var k string
		json.Unmarshal(raw, &k)
		kind, ok := importKinds[k]
		if !ok {
			return nil, "", fmt.Errorf("unknown kind %s (user, group, member or message)", raw)
		}
		return []dataimport.Item{{Key: itemKey(kind, obj), Raw: line}}, kind, nil
	}
	if len(obj) == 1 {
		for w, raw := range obj {
			if _, ok := importKinds[strings.TrimSuffix(w, "s")]; !ok || !strings.HasSuffix(w, "s") {
				break
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				return nil, "", fmt.Errorf("%s must be an object of items", w)
			}
			var items []dataimport.Item
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, "", err
				}
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					return nil, "", err
				}
				items = append(items, dataimport.Item{Key: tok.(string), Raw: v})
			}
			return items, w, nil
		}
	}
	return nil, "", errors.New(`a line needs a "kind" (user, group, member, message), or is a hosted import body such as {"users": {…}}`)
}

func saveState(path string, st importState) error {
	b, _ := json.Marshal(st)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("import: state file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("import: state file: %w", err)
	}
	return nil
}

// progress shows how far an import is: on a terminal one line redrawn in place, otherwise a
// plain line every so often.
type progress struct {
	w            io.Writer
	tty          bool
	size, from   int64
	every        time.Duration
	start, last  time.Time
	items        int
	offset       int64
	printedOnTTY bool
}

func newProgress(w io.Writer, size, from int64, every time.Duration) *progress {
	now := time.Now()
	return &progress{w: w, tty: isTerminal(w), size: size, from: from, offset: from, every: every, start: now, last: now}
}

// isTerminal reports whether w is a character device (a terminal), without a dependency.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) add(n int, offset int64) {
	p.items += n
	p.offset = offset
	now := time.Now()
	if p.tty {
		if now.Sub(p.last) < 200*time.Millisecond {
			return
		}
		p.last = now
		fmt.Fprintf(p.w, "\r\033[K%s", p.line(now))
		p.printedOnTTY = true
		return
	}
	if now.Sub(p.last) >= p.every {
		p.last = now
		fmt.Fprintf(p.w, "natter import: %s\n", p.line(now))
	}
}

func (p *progress) line(now time.Time) string {
	el := now.Sub(p.start).Seconds()
	rate := float64(p.items) / max(el, 1e-9)
	pct := 100.0
	if p.size > 0 {
		pct = 100 * float64(p.offset) / float64(p.size)
	}
	eta := "?"
	if done := p.offset - p.from; done > 0 {
		left := float64(p.size-p.offset) / (float64(done) / max(el, 1e-9))
		eta = (time.Duration(left) * time.Second).Round(time.Second).String()
	}
	return fmt.Sprintf("%5.1f%%  %d items  %.0f items/s  ETA %s", pct, p.items, rate, eta)
}

func (p *progress) done() {
	if p.tty && p.printedOnTTY {
		fmt.Fprintf(p.w, "\r\033[K%s\n", p.line(time.Now()))
	}
}
