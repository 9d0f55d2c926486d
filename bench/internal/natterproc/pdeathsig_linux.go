package natterproc

import "syscall"

// setPdeathsig makes the kernel send natter SIGTERM when the bench tool dies, so that a killed run
// leaves no natter behind.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
