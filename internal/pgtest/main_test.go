package pgtest_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/pgtest"
)

// TestHelperNeedsPostgres is run by TestMissingPostgresFailsThePackage in a child process
// that has no PostgreSQL; in a normal run it does nothing.
func TestHelperNeedsPostgres(t *testing.T) {
	if os.Getenv("PGTEST_HELPER") == "" {
		t.Skip("helper for TestMissingPostgresFailsThePackage")
	}
	pgtest.URL(t)
	t.Error("pgtest.URL returned without PostgreSQL")
}

// Without PostgreSQL a package whose tests needed it does not pass quietly: go test shows a
// passing package as one "ok" line, so Main fails it with a banner, unless
// NATTER_TEST_SKIP_POSTGRES=1 asks to pass. Under CI=true the tests fail whatever that says.
func TestMissingPostgresFailsThePackage(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		code int
		want []string // in the output
	}{
		{"default", nil, 1, []string{"pgtest: FAIL: 1 test(s) did not run on PostgreSQL: PostgreSQL not available", "NATTER_TEST_SKIP_POSTGRES=1"}},
		{"NATTER_TEST_SKIP_POSTGRES=1", []string{"NATTER_TEST_SKIP_POSTGRES=1"}, 0, []string{"passing anyway"}},
		{"CI=true", []string{"CI=true", "NATTER_TEST_SKIP_POSTGRES=1"}, 1, []string{"CI=true: failing rather than skipping"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperNeedsPostgres$", "-test.count=1", "-test.v")
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				switch name {
				case "CI", "NATTER_TEST_POSTGRES_URL", "NATTER_TEST_SKIP_POSTGRES", "NATTER_PG_BIN":
				default:
					cmd.Env = append(cmd.Env, kv)
				}
			}
			// A directory without PostgreSQL's programs: the shared server cannot start.
			cmd.Env = append(cmd.Env, "PGTEST_HELPER=1", "NATTER_PG_BIN="+t.TempDir())
			cmd.Env = append(cmd.Env, tc.env...)
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output does not say %q", w)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}
