package pgserver

import "syscall"

// setPdeathsig makes the kernel send SIGQUIT (immediate shutdown) to postgres when the thread
// that started it dies, so a process killed by a timeout or SIGKILL does not leave a server
// running. Only Linux has this; elsewhere the stale-server sweep is the only safety net.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGQUIT }
