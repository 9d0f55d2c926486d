//go:build !linux

package s3test

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
