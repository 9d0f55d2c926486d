package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natter-chat/natter/internal/blobstore"
	"github.com/natter-chat/natter/internal/s3test"
)

const key = "abcdefghijklmnop0123"

// store is a Store under test, and what it keeps behind it (files, objects, parts), to see
// that a failed Put leaves nothing.
type store struct {
	blobstore.Store
	left func() []string
}

// stores gives the contract's tests every Store: Disk, and S3 on a real S3-compatible server.
func stores(t *testing.T, f func(t *testing.T, s store)) {
	t.Run("disk", func(t *testing.T) {
		dir := t.TempDir()
		d, err := blobstore.OpenDisk(dir)
		if err != nil {
			t.Fatal(err)
		}
		f(t, store{d, func() []string { return files(dir) }})
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Start(t)
		s, err := blobstore.OpenS3(srv.Config())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
		f(t, store{s, srv.Files})
	})
}

func files(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// pattern is n bytes that differ at every offset a test reads, so that a range read from
// the wrong place shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// TestStorePutOpenDelete: a blob stored, read back whole and by range (seeking back and
// forth, as http.ServeContent does), replaced, deleted; a small blob (one PUT) and one of
// several parts (a multipart upload on S3).
func TestStorePutOpenDelete(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		for _, size := range []int{12, blobstore.MinPartSize*2 + 1234} {
			want := pattern(size)
			n, err := s.Put(ctx, key, bytes.NewReader(want), int64(size))
			if err != nil || n != int64(size) {
				t.Fatalf("put %d: %d %v", size, n, err)
			}
			b, err := s.Open(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if b.Size() != int64(size) || time.Since(b.ModTime()) > time.Hour {
				t.Errorf("size %d, time %v", b.Size(), b.ModTime())
			}
			if end, _ := b.Seek(0, io.SeekEnd); end != int64(size) {
				t.Errorf("seek end: %d", end)
			}
			b.Seek(7, io.SeekStart)
			head := make([]byte, 5)
			if _, err := io.ReadFull(b, head); err != nil || !bytes.Equal(head, want[7:12]) {
				t.Errorf("from 7: %q %v", head, err)
			}
			b.Seek(0, io.SeekStart)
			got, err := io.ReadAll(b)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("whole: %d bytes, %v", len(got), err)
			}
			b.Seek(int64(size-3), io.SeekStart)
			if tail, _ := io.ReadAll(b); !bytes.Equal(tail, want[size-3:]) {
				t.Errorf("tail %q", tail)
			}
			b.Close()
		}
		// A key that exists is replaced.
		if _, err := s.Put(ctx, key, strings.NewReader("new"), 10); err != nil {
			t.Fatal(err)
		}
		b, _ := s.Open(ctx, key)
		if got, _ := io.ReadAll(b); string(got) != "new" {
			t.Errorf("replaced: %q", got)
		}
		b.Close()
		if err := s.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Open(ctx, key); !errors.Is(err, blobstore.ErrNotFound) {
			t.Errorf("after delete: %v", err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Errorf("second delete: %v", err)
		}
		if left := s.left(); len(left) != 0 {
			t.Errorf("left behind: %v", left)
		}
	})
}

var errBroken = errors.New("connection reset")

// breaks reads n bytes of zeros, then fails.
type breaks struct{ n int }

func (b *breaks) Read(p []byte) (int, error) {
	if b.n == 0 {
		return 0, errBroken
	}
	k := min(len(p), b.n)
	clear(p[:k])
	b.n -= k
	return k, nil
}

// cancelAfter cancels its context once it has given n bytes: a client that hangs up mid-way.
type cancelAfter struct {
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
		return 0, context.Canceled
	}
	k := min(len(p), c.n)
	clear(p[:k])
	c.n -= k
	return k, nil
}

// TestStoreRefusals: over the cap (within one part and past several), a body that breaks
// off (before and after a first part went), a context cancelled, a bad key: each answers its
// error and leaves nothing, not even a multipart upload's parts.
func TestStoreRefusals(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		big := blobstore.MinPartSize*2 + 10
		mid, cancelMid := context.WithCancel(ctx)
		defer cancelMid()
		for _, c := range []struct {
			name string
			ctx  context.Context
			key  string
			r    io.Reader
			max  int64
			want error
		}{
			{"over the cap", ctx, key, bytes.NewReader(make([]byte, 1001)), 1000, blobstore.ErrTooLarge},
			{"over the cap past parts", ctx, key, bytes.NewReader(make([]byte, big)), int64(big - 1), blobstore.ErrTooLarge},
			{"reader fails", ctx, key, io.MultiReader(strings.NewReader("part"), &breaks{}), 1000, errBroken},
			{"reader fails past a part", ctx, key, &breaks{n: blobstore.MinPartSize + 100}, int64(big), errBroken},
			{"cancelled", cancelled, key, strings.NewReader("x"), 1000, context.Canceled},
			{"cancelled past a part", mid, key, &cancelAfter{n: blobstore.MinPartSize + 100, cancel: cancelMid}, int64(big), context.Canceled},
			{"dot dot", ctx, "../../etc/passwd0000", strings.NewReader("x"), 1000, blobstore.ErrBadKey},
			{"short key", ctx, "abc", strings.NewReader("x"), 1000, blobstore.ErrBadKey},
			{"upper case", ctx, "ABCDEFGHIJKLMNOPQRST", strings.NewReader("x"), 1000, blobstore.ErrBadKey},
		} {
			t.Run(c.name, func(t *testing.T) {
				if _, err := s.Put(c.ctx, c.key, c.r, c.max); !errors.Is(err, c.want) {
					t.Fatalf("err %v, want %v", err, c.want)
				}
				if left := s.left(); len(left) != 0 {
					t.Errorf("left behind: %v", left)
				}
				if _, err := s.Open(ctx, key); !errors.Is(err, blobstore.ErrNotFound) {
					t.Errorf("open: %v", err)
				}
			})
		}
	})
}

// TestS3Unavailable: with the server down, Put, Open and Delete answer ErrUnavailable, soon
// (not after minio-go's ten retries); once it is back, the store works again and kept what
// it had.
func TestS3Unavailable(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	s, err := blobstore.OpenS3(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Put(ctx, key, strings.NewReader("kept"), 10); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	start := time.Now()
	if _, err := s.Put(ctx, "other0123456789abcdef", strings.NewReader("lost"), 10); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Errorf("put: %v", err)
	}
	if _, err := s.Open(ctx, key); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Errorf("open: %v", err)
	}
	if err := s.Delete(ctx, key); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Errorf("delete: %v", err)
	}
	if err := s.CheckBucket(ctx); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Errorf("check bucket: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("four calls against a stopped server took %v", d)
	}
	srv.Start()
	b, err := s.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got, _ := io.ReadAll(b); string(got) != "kept" {
		t.Errorf("after the outage: %q", got)
	}
	if left := srv.Files(); len(left) != 1 {
		t.Errorf("files: %v", left)
	}
}

// TestOpenS3Refusals: a configuration that cannot work is refused at start, and a bucket
// that does not exist is said so.
func TestOpenS3Refusals(t *testing.T) {
	t.Parallel()
	for _, c := range []blobstore.S3Config{
		{Endpoint: "127.0.0.1:9000", Bucket: "b"},
		{Endpoint: "ftp://host", Bucket: "b"},
		{Endpoint: "http://host/path", Bucket: "b"},
		{Endpoint: "http://host"},
		{Endpoint: "http://host", Bucket: "b", PartSize: 1 << 20},
	} {
		if _, err := blobstore.OpenS3(c); err == nil {
			t.Errorf("%+v: accepted", c)
		}
	}
	srv := s3test.Start(t)
	cfg := srv.Config()
	cfg.Bucket = "no-such-bucket"
	s, err := blobstore.OpenS3(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckBucket(context.Background()); err == nil || errors.Is(err, blobstore.ErrUnavailable) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing bucket: %v", err)
	}
}

// postForm posts fields, then content as the part "file", to url, as SDK 4.2's uploader
// does, and answers the status and body.
func postForm(t *testing.T, url string, fields map[string]string, content string) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "blob.bin")
	io.WriteString(fw, content)
	mw.Close()
	res, err := http.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestS3PresignPost: a presigned POST stores the file straight in the bucket, with its
// metadata; a file of another size, another type or after the expiry is refused by the store
// and leaves nothing.
func TestS3PresignPost(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	s, err := blobstore.OpenS3(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	meta := map[string]string{"natter-grant": "e30.c2ln"}
	url, fields, err := s.PresignPost(ctx, key, 5, "image/png", meta, time.Now().Add(15*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, srv.Endpoint()+"/"+s3test.Bucket) || fields["key"] != key || fields["Content-Type"] != "image/png" {
		t.Errorf("form: %s %v", url, fields)
	}
	for _, c := range []struct {
		name, content string
		edit          func(map[string]string)
	}{
		{"short", "1234", nil},
		{"long", "123456", nil},
		{"other type", "12345", func(f map[string]string) { f["Content-Type"] = "text/html" }},
		{"other key", "12345", func(f map[string]string) { f["key"] = "zzzzzzzzzzzzzzzzzzzz" }},
		{"other grant", "12345", func(f map[string]string) { f["x-amz-meta-natter-grant"] = "forged" }},
	} {
		f := maps.Clone(fields)
		if c.edit != nil {
			c.edit(f)
		}
		if status, body := postForm(t, url, f, c.content); status < 400 {
			t.Errorf("%s: %d %s", c.name, status, body)
		}
		if left := srv.Files(); len(left) != 0 {
			t.Errorf("%s: left %v", c.name, left)
		}
	}
	if status, body := postForm(t, url, fields, "12345"); status != 201 {
		t.Fatalf("post: %d %s", status, body)
	}
	size, got, err := s.Stat(ctx, key)
	if err != nil || size != 5 || got["natter-grant"] != "e30.c2ln" {
		t.Errorf("stat: %d %v %v", size, got, err)
	}
	if _, _, err := s.Stat(ctx, "nothing0123456789abc"); !errors.Is(err, blobstore.ErrNotFound) {
		t.Errorf("stat of nothing: %v", err)
	}
	url, fields, _ = s.PresignPost(ctx, "expired0123456789abc", 5, "image/png", nil, time.Now().Add(-time.Second))
	if status, body := postForm(t, url, fields, "12345"); status != 403 {
		t.Errorf("expired: %d %s", status, body)
	}
}
