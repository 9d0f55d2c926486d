//go:build !unix

package pgserver

import (
	"errors"
	"os"
	"syscall"
)

// Off Unix, Start reports ErrUnavailable.
const platformSupported = false

func sysProcAttr(bool, int, int) *syscall.SysProcAttr { return nil }
func setPdeathsig(*syscall.SysProcAttr)               {}
func pidAlive(int) bool                               { return true }
func signalPID(int, os.Signal) error                  { return errors.ErrUnsupported }

var sigQuit os.Signal = os.Kill
