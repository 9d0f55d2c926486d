// Package chromium finds the headless Chromium that the browser tests (the web console's,
// the React UI Kit's) drive: Debian's chromium package in CI, or NATTER_CHROMIUM.
package chromium

import (
	"os"
	"os/exec"
	"testing"
)

// Path returns the Chromium binary. Without one the test is skipped loudly, naming what
// would have run (what), and fails under CI=true, where .ci/run installs it.
func Path(t testing.TB, what string) string {
	t.Helper()
	for _, name := range []string{os.Getenv("NATTER_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and no chromium: install Debian's chromium package (apt-get install chromium), or set NATTER_CHROMIUM")
	}
	t.Log("############################################################")
	t.Logf("SKIPPED LOUDLY: %s: no chromium on PATH", what)
	t.Log("(apt-get install chromium, or set NATTER_CHROMIUM; CI fails here)")
	t.Log("############################################################")
	t.SkipNow()
	return ""
}
