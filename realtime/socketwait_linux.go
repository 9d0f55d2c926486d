package realtime

import (
	"net"
	"syscall"
)

// readableWaiter returns a wait for nc to have something to read (data, end of stream or an
// error) that holds no buffer while it waits: the poller parks the goroutine as a read
// would, and a one-byte peek tells a readable connection from a spurious wake-up.
func readableWaiter(nc net.Conn) func() error {
	sc, ok := nc.(syscallConn)
	if !ok {
		return nil // TLS, say: its reads go through its own buffers anyway
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() error { return rc.Read(readable) }
}

// readable reports whether fd has something to read; false makes the poller wait.
func readable(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err != syscall.EINTR {
			return err != syscall.EAGAIN
		}
	}
}
