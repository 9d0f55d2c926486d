//go:build unix

package pgserver

import (
	"errors"
	"os"
	"syscall"
)

const platformSupported = true

// sysProcAttr runs a child as uid/gid when asUser (PostgreSQL refuses to run as root), in its
// own process group so a terminal's Ctrl-C reaches only the calling program, which then shuts
// the server down itself.
func sysProcAttr(asUser bool, uid, gid int) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if asUser {
		a.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	return a
}

func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func signalPID(pid int, sig os.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

var sigQuit os.Signal = syscall.SIGQUIT // PostgreSQL's "immediate shutdown"
