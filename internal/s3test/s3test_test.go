package s3test_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/blobstore"
	"github.com/natter-chat/natter/internal/s3test"
)

// TestHelperNeedsS3 is run by TestMissingServer in a child process that has no versitygw;
// in a normal run it does nothing.
func TestHelperNeedsS3(t *testing.T) {
	if os.Getenv("S3TEST_HELPER") == "" {
		t.Skip("helper for TestMissingServer")
	}
	s3test.Start(t)
	t.Error("s3test.Start returned without a server")
}

// TestMissingServer: without versitygw a test that needs it skips and says why; under
// CI=true it fails, so that CI cannot pass by skipping the S3 tests.
func TestMissingServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		code int
		want string
	}{
		{"default", nil, 0, "!!! SKIPPED: s3test: no S3-compatible server"},
		{"CI=true", []string{"CI=true"}, 1, "CI=true: failing rather than skipping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperNeedsS3$", "-test.count=1", "-test.v")
			for _, kv := range os.Environ() {
				if name, _, _ := strings.Cut(kv, "="); name != "CI" && name != "NATTER_S3_BIN" {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "S3TEST_HELPER=1", "NATTER_S3_BIN=/nonexistent/versitygw")
			cmd.Env = append(cmd.Env, tc.env...)
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(string(out), tc.want) {
				t.Errorf("exit status %d, want %d; output:\n%s", code, tc.code, out)
			}
		})
	}
}

// TestStopStart: a server stopped answers nothing; started again on its address, it has its
// bucket and objects (the outage tests rely on it).
func TestStopStart(t *testing.T) {
	srv := s3test.Start(t)
	s, err := blobstore.OpenS3(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const key = "stopstart0123456789"
	if _, err := s.Put(ctx, key, strings.NewReader("kept"), 10); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if err := s.CheckBucket(ctx); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Errorf("stopped: %v", err)
	}
	srv.Start()
	b, err := s.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got, _ := io.ReadAll(b); string(got) != "kept" || len(srv.Files()) != 1 {
		t.Errorf("after a restart: %q, files %v", got, srv.Files())
	}
}
