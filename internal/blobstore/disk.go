package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tempPrefix starts the name of a blob being written; OpenDisk removes those an interrupted
// process left.
const tempPrefix = ".upload-"

// Disk keeps blobs as files in a directory, two levels deep by the key's first characters so
// that no directory grows huge: <dir>/<key[0:2]>/<key>. A blob is written to a temporary file
// in its final directory, synced, then renamed into place, so a reader sees a whole blob or
// none and a crash leaves only a temporary file, which the next OpenDisk removes.
type Disk struct {
	dir string
}

// OpenDisk returns the store in dir, creating it (0700) if need be, and removes the temporary
// files of uploads an earlier process did not finish.
func OpenDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("files directory: %w", err)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // best effort: an unreadable entry is not this process's to fix
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), tempPrefix) {
			os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Disk{dir: dir}, nil
}

// Dir is the store's directory.
func (d *Disk) Dir() string { return d.dir }

func (d *Disk) path(key string) (string, error) {
	if !ValidKey(key) {
		return "", ErrBadKey
	}
	return filepath.Join(d.dir, key[:2], key), nil
}

// Put implements Store.
func (d *Disk) Put(ctx context.Context, key string, r io.Reader, max int64) (n int64, err error) {
	p, err := d.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, diskErr(err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), tempPrefix+"*")
	if err != nil {
		return 0, diskErr(err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	n, err = io.Copy(f, &ctxReader{ctx: ctx, r: io.LimitReader(r, max+1)})
	if err != nil {
		return n, diskErr(err)
	}
	if n > max {
		return n, ErrTooLarge
	}
	if err = f.Sync(); err != nil {
		return n, diskErr(err)
	}
	if err = f.Close(); err != nil {
		return n, diskErr(err)
	}
	if err = os.Rename(f.Name(), p); err != nil {
		return n, diskErr(err)
	}
	return n, nil
}

// Open implements Store.
func (d *Disk) Open(_ context.Context, key string) (Blob, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, ErrNotFound
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, diskErr(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, diskErr(err)
	}
	return &diskBlob{File: f, size: st.Size(), mod: st.ModTime()}, nil
}

// Delete implements Store.
func (d *Disk) Delete(_ context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return diskErr(err)
	}
	return nil
}

type diskBlob struct {
	*os.File
	size int64
	mod  time.Time
}

func (b *diskBlob) Size() int64        { return b.size }
func (b *diskBlob) ModTime() time.Time { return b.mod }

// diskErr marks a full disk as ErrUnavailable (the caller answers 503 and the client
// retries); other errors pass as they are, wrapped.
func diskErr(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return err
}

// ctxReader stops reading when ctx ends, so an upload whose request was cancelled does not
// keep writing.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
