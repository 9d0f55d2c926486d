//go:build unix && !linux

package pgserver

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
