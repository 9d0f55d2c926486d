//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlstore

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock(2) on f without waiting; ok is false if another open file
// description holds it (another process, or another Open in this one).
func tryLock(f *os.File) (ok bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}
