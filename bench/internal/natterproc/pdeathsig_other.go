//go:build !linux

package natterproc

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
