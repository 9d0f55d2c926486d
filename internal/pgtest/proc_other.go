//go:build !unix

package pgtest

import (
	"errors"
	"os"
	"syscall"
)

// Off Unix, URL and NewServer skip (or fail under CI) unless NATTER_TEST_POSTGRES_URL is set.
const platformSupported = false

func sysProcAttr(bool, int, int) *syscall.SysProcAttr { return nil }
func setPdeathsig(*syscall.SysProcAttr)               {}
func pidAlive(int) bool                               { return true }
func signalPID(int, os.Signal) error                  { return errors.ErrUnsupported }

var sigQuit os.Signal = os.Kill
