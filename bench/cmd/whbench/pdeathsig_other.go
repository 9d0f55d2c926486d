//go:build !linux

package main

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
