package blobstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3 keeps blobs as objects in a bucket of an S3-compatible store (AWS S3, MinIO, Garage,
// SeaweedFS, Ceph, versitygw, …), so that every node of a deployment sees every file. Objects
// are named <Prefix><key>. It speaks S3 through minio-go (README, "Dependencies").
//
// A Put holds at most one part in memory (S3Config.PartSize, 5 MiB by default, pooled): S3
// needs an object's length before its bytes, which a multipart send does not give, so a blob
// that fits in one part is read whole and sent in one PUT, and a longer one goes as a
// multipart upload of such parts, aborted on any failure. Nothing appears under the key until
// the PUT or the multipart upload completes, so a failed or over-cap Put leaves nothing.
type S3 struct {
	core     *minio.Core
	bucket   string
	prefix   string
	partSize int64
	bufs     sync.Pool
}

// S3Config says where the bucket is and how to reach it.
type S3Config struct {
	// Endpoint is the store's base URL: http://127.0.0.1:7070, https://s3.eu-west-1.amazonaws.com.
	Endpoint string
	Bucket   string
	// Region signs requests; most self-hosted stores accept any, AWS wants the bucket's.
	Region string
	// AccessKey and SecretKey are the store's credentials (static, SigV4).
	AccessKey, SecretKey string
	// PathStyle addresses the bucket as <endpoint>/<bucket>/<key> rather than
	// <bucket>.<endpoint>/<key>: what MinIO, Garage, SeaweedFS and versitygw expect by default.
	PathStyle bool
	// Prefix is put before every key (e.g. "natter/"), to share a bucket.
	Prefix string
	// PartSize is the size of a multipart upload's parts, and the memory a Put holds; at least
	// S3's minimum of 5 MiB (the default).
	PartSize int64
}

// MinPartSize is S3's smallest part of a multipart upload (but the last), and S3's default.
const MinPartSize = 5 << 20

// s3Retries bounds minio-go's retries of one request: its default (10, backing off up to a
// second each) would hold an upload for seconds against a store that is down, where the
// client should hear 503 and retry itself.
const s3Retries = 2

// OpenS3 returns the store on c's bucket. It makes no request: CheckBucket does.
func OpenS3(c S3Config) (*S3, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("S3 endpoint %q: want http(s)://host[:port]", c.Endpoint)
	}
	if c.Bucket == "" {
		return nil, errors.New("S3 bucket: none given")
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if c.PartSize == 0 {
		c.PartSize = MinPartSize
	}
	if c.PartSize < MinPartSize || c.PartSize > 5<<30 {
		return nil, fmt.Errorf("S3 part size %d: want 5 MiB to 5 GiB", c.PartSize)
	}
	lookup := minio.BucketLookupDNS
	if c.PathStyle {
		lookup = minio.BucketLookupPath
	}
	// Bounded waits: a store that does not answer is an outage (503), not a hung request.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = 10 * time.Second
	tr.ResponseHeaderTimeout = 30 * time.Second
	tr.MaxIdleConnsPerHost = 32
	tr.DisableCompression = true // bytes as stored: Range offsets and lengths are the object's
	core, err := minio.NewCore(u.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure: u.Scheme == "https",
		// The region given, so that minio-go asks the store for none (GetBucketLocation).
		Region:       c.Region,
		BucketLookup: lookup,
		Transport:    tr,
		MaxRetries:   s3Retries,
	})
	if err != nil {
		return nil, fmt.Errorf("S3 client: %w", err)
	}
	s := &S3{core: core, bucket: c.Bucket, prefix: c.Prefix, partSize: c.PartSize}
	s.bufs.New = func() any { b := make([]byte, s.partSize); return &b }
	return s, nil
}

// CheckBucket asks the store whether the bucket exists: an error when it does not (a
// configuration's mistake), ErrUnavailable when the store does not answer.
func (s *S3) CheckBucket(ctx context.Context) error {
	ok, err := s.core.BucketExists(ctx, s.bucket)
	if err != nil {
		return s3Err(ctx, err)
	}
	if !ok {
		return fmt.Errorf("S3 bucket %q does not exist", s.bucket)
	}
	return nil
}

// Bucket is the store's bucket.
func (s *S3) Bucket() string { return s.bucket }

func (s *S3) object(key string) (string, error) {
	if !ValidKey(key) {
		return "", ErrBadKey
	}
	return s.prefix + key, nil
}

// Put implements Store: one PUT for a blob that fits in a part, else a multipart upload
// that is completed only once the whole blob, within max, has been sent.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, max int64) (int64, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	buf := *bp
	src := &ctxReader{ctx: ctx, r: io.LimitReader(r, max+1)}
	n, err := io.ReadFull(src, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return int64(n), err // the client's body, or ctx: the store was not touched
	}
	if int64(n) > max {
		return int64(n), ErrTooLarge
	}
	if err != nil { // the whole blob is in buf: one PUT with its length
		_, err := s.core.PutObject(ctx, s.bucket, obj, bytes.NewReader(buf[:n]), int64(n), "", "", minio.PutObjectOptions{ContentType: "application/octet-stream"})
		if err != nil {
			return int64(n), s3Err(ctx, err)
		}
		return int64(n), nil
	}
	return s.putParts(ctx, obj, src, buf, max)
}

// putParts sends a blob longer than a part as a multipart upload, buf holding its first part;
// any failure aborts the upload, so that the store keeps none of it.
func (s *S3) putParts(ctx context.Context, obj string, src io.Reader, buf []byte, max int64) (total int64, err error) {
	id, err := s.core.NewMultipartUpload(ctx, s.bucket, obj, minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return 0, s3Err(ctx, err)
	}
	defer func() {
		if err != nil {
			// Past ctx's end too: parts left behind cost storage until a lifecycle rule.
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			s.core.AbortMultipartUpload(actx, s.bucket, obj, id)
			cancel()
		}
	}()
	var parts []minio.CompletePart
	n := len(buf)
	for {
		total += int64(n)
		if total > max {
			return total, ErrTooLarge
		}
		p, err := s.core.PutObjectPart(ctx, s.bucket, obj, id, len(parts)+1, bytes.NewReader(buf[:n]), int64(n), minio.PutObjectPartOptions{})
		if err != nil {
			return total, s3Err(ctx, err)
		}
		parts = append(parts, minio.CompletePart{PartNumber: p.PartNumber, ETag: p.ETag})
		var rerr error
		n, rerr = io.ReadFull(src, buf)
		if rerr == io.EOF {
			break
		}
		if rerr != nil && rerr != io.ErrUnexpectedEOF {
			return total, rerr
		}
	}
	if _, err := s.core.CompleteMultipartUpload(ctx, s.bucket, obj, id, parts, minio.PutObjectOptions{}); err != nil {
		return total, s3Err(ctx, err)
	}
	return total, nil
}

// Open implements Store. It asks the object's size and time (a HEAD), so that a missing
// object or an outage is an error before the caller answers anything; the bytes come on the
// first Read, from the offset a Seek left (a GET with Range), so that serving a range costs
// a HEAD and one GET of that range's bytes, and a 304 only the HEAD.
func (s *S3) Open(ctx context.Context, key string) (Blob, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, ErrNotFound
	}
	info, err := s.core.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	if err != nil {
		return nil, s3Err(ctx, err)
	}
	return &s3Blob{s: s, ctx: ctx, obj: obj, size: info.Size, mod: info.LastModified, etag: info.ETag}, nil
}

// Delete implements Store. S3's DELETE of a missing object succeeds already.
func (s *S3) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return nil
	}
	if err := s.core.RemoveObject(ctx, s.bucket, obj, minio.RemoveObjectOptions{}); err != nil {
		if err := s3Err(ctx, err); !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// s3Blob reads an object from an offset, opening a ranged GET on the first Read after a
// Seek moved it.
type s3Blob struct {
	s    *S3
	ctx  context.Context
	obj  string
	size int64
	mod  time.Time
	etag string
	off  int64
	body io.ReadCloser // nil until read, and after a Seek that moved
}

func (b *s3Blob) Size() int64        { return b.size }
func (b *s3Blob) ModTime() time.Time { return b.mod }

func (b *s3Blob) Read(p []byte) (int, error) {
	if b.off >= b.size {
		return 0, io.EOF
	}
	if b.body == nil {
		var opts minio.GetObjectOptions
		if b.off > 0 {
			opts.SetRange(b.off, 0) // bytes=off-
		}
		// The object read is the one stated: a key's bytes never change, but a key deleted
		// and written again must not splice two objects.
		opts.SetMatchETag(b.etag)
		body, _, _, err := b.s.core.GetObject(b.ctx, b.s.bucket, b.obj, opts)
		if err != nil {
			return 0, s3Err(b.ctx, err)
		}
		b.body = body
	}
	n, err := b.body.Read(p)
	b.off += int64(n)
	if err == io.EOF && b.off < b.size {
		err = fmt.Errorf("%w: object ended at %d of %d bytes", ErrUnavailable, b.off, b.size)
	}
	if err != nil && err != io.EOF {
		err = s3Err(b.ctx, err)
	}
	return n, err
}

func (b *s3Blob) Seek(offset int64, whence int) (int64, error) {
	var off int64
	switch whence {
	case io.SeekStart:
		off = offset
	case io.SeekCurrent:
		off = b.off + offset
	case io.SeekEnd:
		off = b.size + offset
	default:
		return b.off, errors.New("seek: bad whence")
	}
	if off < 0 {
		return b.off, errors.New("seek: negative offset")
	}
	if off != b.off && b.body != nil {
		b.body.Close()
		b.body = nil
	}
	b.off = off
	return off, nil
}

func (b *s3Blob) Close() error {
	if b.body != nil {
		b.body.Close()
		b.body = nil
	}
	return nil
}

// s3Err maps a store's failure to the package's errors: a missing key is ErrNotFound; an
// outage (no connection, a timeout, a broken answer, a 5xx, throttling) is ErrUnavailable, for
// the client to retry; ctx's end stays ctx's error. Other refusals (403 for wrong
// credentials, a missing bucket) pass as they are: the operator's to fix, logged as 500s.
func s3Err(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode != 0 {
		switch {
		case resp.Code == "NoSuchKey" || resp.StatusCode == http.StatusNotFound && resp.Code != "NoSuchBucket":
			return fmt.Errorf("%w: %v", ErrNotFound, err)
		case resp.StatusCode >= 500, resp.StatusCode == http.StatusTooManyRequests, resp.Code == "SlowDown", resp.Code == "RequestTimeout":
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return fmt.Errorf("S3: %w", err)
	}
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	// No answer from the store: refused, reset, timed out, cut short.
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

// PresignPost implements Presigner: an S3 POST policy for the object, with its exact length
// (content-length-range size to size), its type and metadata as conditions the store
// enforces. It asks for 201 and S3's XML (the bucket, key and ETag) rather than a bare 204, so
// that a client reading the answer sees what was stored; SDK 4.2's uploader takes any 2xx
// and reads nothing. It makes no request.
func (s *S3) PresignPost(ctx context.Context, key string, size int64, contentType string, meta map[string]string, exp time.Time) (string, map[string]string, error) {
	obj, err := s.object(key)
	if err != nil {
		return "", nil, err
	}
	p := minio.NewPostPolicy()
	for _, err := range []error{p.SetBucket(s.bucket), p.SetKey(obj), p.SetExpires(exp), p.SetContentType(contentType),
		p.SetContentLengthRange(size, size), p.SetSuccessStatusAction("201")} {
		if err != nil {
			return "", nil, fmt.Errorf("post policy: %w", err)
		}
	}
	for k, v := range meta {
		if err := p.SetUserMetadata(k, v); err != nil {
			return "", nil, fmt.Errorf("post policy: %w", err)
		}
	}
	u, fields, err := s.core.PresignedPostPolicy(ctx, p)
	if err != nil {
		return "", nil, fmt.Errorf("post policy: %w", err)
	}
	return u.String(), fields, nil
}

// Stat implements Presigner, with a HEAD.
func (s *S3) Stat(ctx context.Context, key string) (int64, map[string]string, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, nil, ErrNotFound
	}
	info, err := s.core.StatObject(ctx, s.bucket, obj, minio.StatObjectOptions{})
	if err != nil {
		return 0, nil, s3Err(ctx, err)
	}
	meta := map[string]string{}
	for k, v := range info.UserMetadata {
		meta[strings.ToLower(strings.TrimPrefix(strings.ToLower(k), "x-amz-meta-"))] = v
	}
	return info.Size, meta, nil
}
