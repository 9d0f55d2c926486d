//go:build unix && !linux

package pgtest

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
