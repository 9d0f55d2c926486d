//go:build !linux

package realtime

import "net"

// readableWaiter is Linux's alone: elsewhere a read waits holding its buffer.
func readableWaiter(net.Conn) func() error { return nil }
