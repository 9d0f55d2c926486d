// Package blobstore keeps uploaded files' bytes under opaque keys: on a local disk (Disk), and
// behind Store for whatever else plugs in (an S3-compatible bucket, later). It knows no chat:
// which app a key belongs to, and who may read it, are the caller's business.
package blobstore

import (
	"context"
	"errors"
	"io"
	"time"
)

// Store keeps blobs by key. Keys are the caller's: lowercase letters, digits and '-', 16 to
// 128 of them (ValidKey); a store refuses any other.
type Store interface {
	// Put streams r into the blob key, reading at most max bytes: past them it stops reading
	// and answers ErrTooLarge. A Put that fails, or whose context ends, leaves nothing behind;
	// one that succeeds is whole (never a partial blob under key). A key that exists is
	// replaced.
	Put(ctx context.Context, key string, r io.Reader, max int64) (int64, error)
	// Open opens the blob key for reading, seeking included (ranges); ErrNotFound when there is
	// none.
	Open(ctx context.Context, key string) (Blob, error)
	// Delete removes the blob key; a key that is not there is no error.
	Delete(ctx context.Context, key string) error
}

// Blob is an opened blob.
type Blob interface {
	io.ReadSeekCloser
	Size() int64
	ModTime() time.Time
}

var (
	// ErrTooLarge: the blob was longer than Put's max; nothing was kept.
	ErrTooLarge = errors.New("blob larger than its cap")
	// ErrNotFound: no blob under the key.
	ErrNotFound = errors.New("blob not found")
	// ErrUnavailable: the store cannot take or give the blob now (a full disk, an unreachable
	// bucket); a retry later may succeed.
	ErrUnavailable = errors.New("blob store unavailable")
	// ErrBadKey: the key is not one ValidKey accepts.
	ErrBadKey = errors.New("blob key not valid")
)

// ValidKey reports whether key is one a Store takes: 16 to 128 lowercase letters, digits and
// '-', so that it is a safe file name and object name everywhere.
func ValidKey(key string) bool {
	if len(key) < 16 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Presigner is a Store that a client can upload to directly, with a form the store checks
// itself (an S3 presigned POST), so that the bytes never pass through natter.
type Presigner interface {
	// PresignPost signs a form that stores exactly size bytes of type contentType under key,
	// with meta as the blob's metadata, until exp: the URL to post it to, and the fields to
	// send before the file (a part named "file").
	PresignPost(ctx context.Context, key string, size int64, contentType string, meta map[string]string, exp time.Time) (url string, fields map[string]string, err error)
	// Stat is the size and metadata (names in lowercase) of the blob key; ErrNotFound when
	// there is none.
	Stat(ctx context.Context, key string) (size int64, meta map[string]string, err error)
}
