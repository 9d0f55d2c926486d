package realtime

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
)

// An idle socket should hold no I/O buffer: most sockets are idle most of the time, and
// net/http's hijacked connection comes with a 4 KiB reader and a 4 KiB writer that
// coder/websocket would keep for the socket's life. leanConn is the connection as
// coder/websocket sees it instead, behind 16-byte bufio buffers: a read waits until the
// connection is readable before it takes a pooled buffer, and a write collects one WebSocket
// frame in a pooled buffer and sends it whole, so a frame still leaves in one system call.

// ioBufSize is a pooled buffer's size, what net/http's bufio buffers hold.
const ioBufSize = 4 << 10

var ioBufs = sync.Pool{New: func() any { b := make([]byte, ioBufSize); return &b }}

// leanWriter hands coder/websocket's Accept a leanConn when it hijacks the connection.
type leanWriter struct {
	http.ResponseWriter
	conn *leanConn // once hijacked
}

func (w *leanWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *leanWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	c := &leanConn{Conn: nc, wait: readableWaiter(nc)}
	_, c.direct = nc.(*tls.Conn)
	// What net/http read past the upgrade request is the client's first frames.
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		c.early = bytes.Clone(b)
		c.held.Store(true)
	}
	w.conn = c
	return c, bufio.NewReadWriter(bufio.NewReaderSize(c, 16), bufio.NewWriterSize(c, 16)), nil
}

// leanConn is a hijacked connection that holds buffers only while bytes pass. Reads come
// from one goroutine at a time (coder/websocket's read lock), writes likewise (its frame
// write lock); the two sides share no state.
type leanConn struct {
	net.Conn
	wait   func() error // blocks until the connection is readable; nil where it cannot
	direct bool         // reads need no buffer here: the connection has its own (TLS)
	early  []byte       // read by net/http before the hijack, not yet read from here

	rbuf   *[]byte // pooled, holds rbuf[r:w] not yet read; nil when empty
	r, w   int
	rframe frameEnd    // where the frame being read ends
	held   atomic.Bool // early or rbuf holds bytes, for await

	wbuf  *[]byte // pooled, holds the frame being written; nil between frames
	frame frameEnd
}

// await returns once a read would not wait for the network, with true, or at once with
// false where it cannot tell; an error is left for the read to find. It holds no buffer and
// needs no read lock: a read never returns bytes past the end of the frame under way, so
// once coder/websocket has read a whole message its bufio reader is empty, and what came
// after is here.
func (c *leanConn) await() bool {
	if c.wait == nil {
		return false
	}
	if !c.held.Load() {
		_ = c.wait()
	}
	return true
}

// Read returns bytes up to the end of the frame under way at most.
func (c *leanConn) Read(p []byte) (int, error) {
	var src []byte
	switch {
	case len(c.early) > 0:
		src = c.early
	case c.rbuf != nil:
		src = (*c.rbuf)[c.r:c.w]
	case c.direct || c.rframe.body && len(p) >= ioBufSize:
		// A large read of a payload, or any read of a connection that buffers its own,
		// needs no buffer here.
		p = p[:min(uint64(len(p)), c.rframe.room())]
		n, err := c.Conn.Read(p)
		c.rframe.advance(p[:n])
		return n, err
	default:
		if c.wait != nil {
			if err := c.wait(); err != nil {
				return 0, err
			}
		}
		b := ioBufs.Get().(*[]byte)
		n, err := c.Conn.Read(*b)
		if n == 0 {
			ioBufs.Put(b)
			return 0, err
		}
		// An error with data comes again from the next read.
		c.rbuf, c.r, c.w = b, 0, n
		c.held.Store(true)
		src = (*b)[:n]
	}
	k, _ := c.rframe.advance(src[:min(len(p), len(src))])
	copy(p, src[:k])
	if len(c.early) > 0 {
		c.early = c.early[k:]
	} else {
		c.r += k
		if c.r == c.w {
			ioBufs.Put(c.rbuf)
			c.rbuf = nil
		}
	}
	c.held.Store(len(c.early) > 0 || c.rbuf != nil)
	return k, nil
}

func (c *leanConn) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		k, end := c.frame.advance(p)
		if err := c.buffer(p[:k]); err != nil {
			return written, err
		}
		written += k
		p = p[k:]
		if end {
			if err := c.flush(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// buffer adds bytes of the frame under way, sending what fills the buffer.
func (c *leanConn) buffer(p []byte) error {
	for len(p) > 0 {
		if c.wbuf == nil {
			b := ioBufs.Get().(*[]byte)
			*b = (*b)[:0]
			c.wbuf = b
		}
		b := *c.wbuf
		n := copy(b[len(b):cap(b)], p)
		*c.wbuf = b[:len(b)+n]
		p = p[n:]
		if len(*c.wbuf) == cap(*c.wbuf) {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush sends what is buffered and gives the buffer back.
func (c *leanConn) flush() error {
	if c.wbuf == nil {
		return nil
	}
	b := c.wbuf
	c.wbuf = nil
	_, err := c.Conn.Write(*b)
	*b = (*b)[:cap(*b)]
	ioBufs.Put(b)
	return err
}

// frameEnd follows the WebSocket frames (RFC 6455 §5.2) written to a connection, to tell
// where each ends.
type frameEnd struct {
	hdr  [14]byte // the header read so far
	n    int      // bytes of hdr held
	left uint64   // payload bytes still to come, once the header is complete
	body bool     // the header is complete
}

// advance takes the first k bytes of p that belong to the current frame; end reports that
// the frame is complete with them.
func (f *frameEnd) advance(p []byte) (k int, end bool) {
	for k < len(p) {
		if f.body {
			m := uint64(len(p) - k)
			if m >= f.left {
				k += int(f.left)
				*f = frameEnd{}
				return k, true
			}
			f.left -= m
			return len(p), false
		}
		f.hdr[f.n] = p[k]
		f.n++
		k++
		if f.n < 2 || f.n < headerLen(f.hdr[1]) {
			continue
		}
		switch f.hdr[1] & 0x7f {
		case 126:
			f.left = uint64(binary.BigEndian.Uint16(f.hdr[2:4]))
		case 127:
			f.left = binary.BigEndian.Uint64(f.hdr[2:10])
		default:
			f.left = uint64(f.hdr[1] & 0x7f)
		}
		f.body = true
		if f.left == 0 {
			*f = frameEnd{}
			return k, true
		}
	}
	return k, false
}

// room is how many bytes the frame under way has still to come, as far as is known yet:
// the rest of its header, then of its payload.
func (f *frameEnd) room() uint64 {
	switch {
	case f.body:
		return f.left
	case f.n < 2:
		return uint64(2 - f.n)
	}
	return uint64(headerLen(f.hdr[1]) - f.n)
}

// headerLen is the length of a frame header whose second byte is b1.
func headerLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 {
		n += 4 // masking key
	}
	return n
}

// syscallConn is what a connection offers to wait for readability without a buffer.
type syscallConn interface {
	SyscallConn() (syscall.RawConn, error)
}
