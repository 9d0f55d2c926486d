package main

import "syscall"

// setPdeathsig makes the kernel send natter SIGTERM when the harness dies, so a harness
// killed by SIGKILL or a timeout does not leave natter running and holding its port.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
