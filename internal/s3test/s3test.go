// Package s3test gives tests a real S3-compatible server: versitygw (Apache-2.0) on a posix
// directory, started as a child process on a free loopback port in a temporary directory,
// one per call, with one empty bucket. Not a fake in process: the tests speak S3 over HTTP to
// the server operators would run, as internal/pgtest does for PostgreSQL.
//
// The binary is $NATTER_S3_BIN, else versitygw on PATH (.ci/run installs it with go install
// github.com/versity/versitygw/cmd/versitygw@v1.8.0). Without it Start skips the test, and
// says so loudly; with CI=true it fails the test instead, so that CI cannot pass by skipping.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/natter-chat/natter/internal/blobstore"
)

// Credentials and bucket of every test server: throwaway, on loopback only.
const (
	AccessKey = "natter-test-access"
	SecretKey = "natter-test-secret-0123456789"
	Bucket    = "natter-files"
)

// Server is a running (or stopped) versitygw.
type Server struct {
	tb   testing.TB
	bin  string
	root string // the posix backend's directory: a bucket per subdirectory
	addr string // 127.0.0.1:port, kept across Stop and Start
	cmd  *exec.Cmd
	done chan struct{}
}

// Binary is the versitygw to run: $NATTER_S3_BIN, else versitygw on PATH; "" when neither.
func Binary() string {
	if b := os.Getenv("NATTER_S3_BIN"); b != "" {
		if _, err := os.Stat(b); err == nil {
			return b
		}
		return ""
	}
	b, _ := exec.LookPath("versitygw")
	return b
}

// Start starts a server with the bucket Bucket, stopped when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := Binary()
	if bin == "" {
		msg := "s3test: no S3-compatible server to test against: set NATTER_S3_BIN to a versitygw binary, " +
			"or put versitygw on PATH (GOBIN=… go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg + "; CI=true: failing rather than skipping")
		}
		tb.Skip("!!! SKIPPED: " + msg)
	}
	root := tb.TempDir()
	// versitygw's posix backend keeps objects' metadata in extended attributes, which not
	// every temporary file system has; a sidecar directory works everywhere.
	for _, d := range []string{"data", "meta"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	s := &Server{tb: tb, bin: bin, root: root, addr: freeAddr(tb)}
	s.Start()
	tb.Cleanup(s.Stop)
	// The bucket as a client makes one, so that the server keeps its owner and ACL.
	c, err := minio.New(s.addr, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.MakeBucket(context.Background(), Bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		tb.Fatalf("s3test: make bucket: %v", err)
	}
	return s
}

// freeAddr is a loopback address with a port nothing listens on now.
func freeAddr(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Endpoint is the server's base URL.
func (s *Server) Endpoint() string { return "http://" + s.addr }

// Config is the blobstore configuration of the server's bucket.
func (s *Server) Config() blobstore.S3Config {
	return blobstore.S3Config{Endpoint: s.Endpoint(), Bucket: Bucket, Region: "us-east-1", AccessKey: AccessKey, SecretKey: SecretKey, PathStyle: true}
}

// Files lists the files under the bucket's directory, relative to it: the objects, and any
// part of an upload in progress or abandoned (under .sgwtmp). A store that leaves nothing
// behind leaves none.
func (s *Server) Files() []string {
	s.tb.Helper()
	var out []string
	dir := filepath.Join(s.root, "data", Bucket)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// Start starts the server (again, after Stop) on its address, and waits until it answers.
func (s *Server) Start() {
	s.tb.Helper()
	if s.cmd != nil {
		return
	}
	cmd := exec.Command(s.bin, "--access", AccessKey, "--secret", SecretKey, "--port", s.addr, "--quiet",
		"posix", "--sidecar", filepath.Join(s.root, "meta"), filepath.Join(s.root, "data"))
	log, err := os.Create(filepath.Join(s.root, "versitygw.log"))
	if err != nil {
		s.tb.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	setPdeathsig(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		log.Close()
		s.tb.Fatalf("s3test: start %s: %v", s.bin, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(s.done) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", s.Endpoint()+"/", nil)
		res, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			res.Body.Close()
			return // any answer (403 unsigned) means it listens
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(filepath.Join(s.root, "versitygw.log"))
			s.tb.Fatalf("s3test: versitygw exited: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.tb.Fatalf("s3test: versitygw did not answer on %s within 20s: %v", s.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server, as an outage would, and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// String names the server in failures.
func (s *Server) String() string { return fmt.Sprintf("versitygw at %s", s.addr) }
