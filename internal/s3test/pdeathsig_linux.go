package s3test

import "syscall"

// setPdeathsig kills the server when the thread that started it dies, so that a test binary
// killed by a timeout leaves no server running. Only Linux has this.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
