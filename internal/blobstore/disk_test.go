package blobstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const key = "abcdefghijklmnop0123"

// TestDiskPutOpenDelete stores a blob, reads it back whole and by range, and deletes it.
func TestDiskPutOpenDelete(t *testing.T) {
	d, err := OpenDisk(filepath.Join(t.TempDir(), "files"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n, err := d.Put(ctx, key, strings.NewReader("hello, world"), 12)
	if err != nil || n != 12 {
		t.Fatalf("put: %d %v", n, err)
	}
	b, err := d.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if b.Size() != 12 {
		t.Errorf("size %d", b.Size())
	}
	b.Seek(7, io.SeekStart)
	got, _ := io.ReadAll(b)
	b.Close()
	if string(got) != "world" {
		t.Errorf("from 7: %q", got)
	}
	if err := d.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	if err := d.Delete(ctx, key); err != nil {
		t.Errorf("second delete: %v", err)
	}
}

// TestDiskRefusals: a blob over its cap, a failing reader, a cancelled context and a bad key
// leave nothing in the directory.
func TestDiskRefusals(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		key  string
		r    io.Reader
		max  int64
		want error
	}{
		{"over the cap", ctx, key, bytes.NewReader(make([]byte, 1001)), 1000, ErrTooLarge},
		{"reader fails", ctx, key, io.MultiReader(strings.NewReader("part"), errReader{}), 1000, errBroken},
		{"cancelled", cancelled, key, strings.NewReader("x"), 1000, context.Canceled},
		{"dot dot", ctx, "../../etc/passwd0000", strings.NewReader("x"), 1000, ErrBadKey},
		{"short key", ctx, "abc", strings.NewReader("x"), 1000, ErrBadKey},
		{"upper case", ctx, "ABCDEFGHIJKLMNOPQRST", strings.NewReader("x"), 1000, ErrBadKey},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := d.Put(c.ctx, c.key, c.r, c.max); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
			if files := regularFiles(t, dir); len(files) != 0 {
				t.Errorf("left behind: %v", files)
			}
		})
	}
}

// TestOpenDiskRemovesInterruptedUploads: a temporary file a killed process left is removed
// at the next start; a stored blob is kept.
func TestOpenDiskRemovesInterruptedUploads(t *testing.T) {
	dir := t.TempDir()
	d, _ := OpenDisk(dir)
	if _, err := d.Put(context.Background(), key, strings.NewReader("kept"), 10); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "ab", tempPrefix+"123")
	os.WriteFile(stale, []byte("half"), 0o600)
	if _, err := OpenDisk(dir); err != nil {
		t.Fatal(err)
	}
	files := regularFiles(t, dir)
	if len(files) != 1 || filepath.Base(files[0]) != key {
		t.Errorf("files after restart: %v", files)
	}
}

var errBroken = errors.New("connection reset")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

func regularFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}
