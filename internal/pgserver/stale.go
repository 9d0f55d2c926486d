package pgserver

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A process that dies without calling Close (killed, or a test binary's -timeout panic) leaves
// its temporary directory behind, and on systems without Pdeathsig its server too. Each
// directory records its owner in a file, so the next Start can sweep up after owners that are
// gone.

const ownerFile = "owner"

// knownPrefixes are swept by every Start, whatever prefix it uses itself: the default and
// internal/pgtest's.
var knownPrefixes = []string{DefaultTempPrefix, "natter-pgtest-"}

var (
	sweepMu sync.Mutex
	swept   = map[string]bool{} // "parent\x00prefix" already swept by this process
)

// sweepStaleOnce sweeps each (parent directory, prefix) pair at most once per process.
func sweepStaleOnce(parent, own string) {
	sweepMu.Lock()
	defer sweepMu.Unlock()
	for _, p := range append([]string{own}, knownPrefixes...) {
		k := parent + "\x00" + p
		if !swept[k] {
			swept[k] = true
			sweepStale(parent, p)
		}
	}
}

// writeOwner records this process as the owner of dir: its PID, and its start time so that a
// reused PID does not keep a dead owner's directory alive forever.
func writeOwner(dir string) error {
	pid := os.Getpid()
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(fmt.Sprintf("%d %s\n", pid, procStart(pid))), 0o644)
}

// procStart returns the start time of process pid in clock ticks since boot, or "" if unknown
// (no /proc).
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name may contain spaces and parentheses; the fields after the last ')'
	// start at field 3, and starttime is field 22.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

func ownerAlive(owner string) bool {
	var pid int
	var start string
	fmt.Sscan(owner, &pid, &start)
	if pid <= 0 || !pidAlive(pid) {
		return false
	}
	now := procStart(pid)
	return start == "" || now == "" || now == start
}

// sweepStale removes the directories named prefix* in parent, and stops their servers, whose
// owners are gone.
func sweepStale(parent, prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, prefix+"*"))
	for _, dir := range dirs {
		owner, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			// Another process may have just created the directory and not yet written the
			// owner file; only a directory that stayed ownerless for long is abandoned.
			if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < time.Hour {
				continue
			}
		} else if ownerAlive(string(owner)) {
			continue
		}
		if stopStale(filepath.Join(dir, "data")) {
			os.RemoveAll(dir)
		}
	}
}

// stopStale stops the postmaster running on data, if any, and reports whether none runs now.
func stopStale(data string) bool {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if errors.Is(err, fs.ErrNotExist) {
		return true
	} else if err != nil {
		return false
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if pid <= 0 || !pidAlive(pid) {
		return true
	}
	// A postmaster killed with SIGKILL leaves its pid file, and the PID may be reused since:
	// only signal a process whose command line names this data directory.
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false // cannot tell what the process is
	}
	if !bytes.Contains(cmdline, []byte(data)) {
		return true
	}
	signalPID(pid, sigQuit)
	for i := 0; i < 100 && pidAlive(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	return !pidAlive(pid)
}
