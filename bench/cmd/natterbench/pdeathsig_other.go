//go:build !linux

package main

import "syscall"

// setPdeathsig: only Linux can tie a child's life to its parent's.
func setPdeathsig(*syscall.SysProcAttr) {}
