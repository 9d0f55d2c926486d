package realtime

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"
)

// wsFrame is a WebSocket frame with an n-byte payload, masked or not.
func wsFrame(n int, masked bool, fill byte) []byte {
	h := []byte{0x81, 0}
	switch {
	case n > 65535:
		h[1] = 127
		h = binary.BigEndian.AppendUint64(h, uint64(n))
	case n > 125:
		h[1] = 126
		h = binary.BigEndian.AppendUint16(h, uint16(n))
	default:
		h[1] = byte(n)
	}
	if masked {
		h[1] |= 0x80
		h = append(h, 1, 2, 3, 4)
	}
	return append(h, bytes.Repeat([]byte{fill}, n)...)
}

// writesConn records each write that reaches the connection.
type writesConn struct {
	net.Conn
	writes [][]byte
}

func (c *writesConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

// TestLeanConnWritesWholeFrames: however coder/websocket splits a frame into writes, a frame
// that fits the buffer reaches the connection in one write, a larger one in buffer-sized
// writes, and no buffer is held between frames.
func TestLeanConnWritesWholeFrames(t *testing.T) {
	sizes := []int{0, 1, 5, 125, 126, 127, 300, ioBufSize - 4, ioBufSize - 3, ioBufSize, 9000, 65535, 65536, 70000}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		w := &writesConn{}
		c := &leanConn{Conn: w}
		var frames [][]byte
		for i, n := range sizes {
			frames = append(frames, wsFrame(n, (i+round)%3 == 0, byte('a'+i)))
		}
		rng.Shuffle(len(frames), func(i, j int) { frames[i], frames[j] = frames[j], frames[i] })
		var want []byte
		for _, f := range frames {
			want = append(want, f...)
			before := len(w.writes)
			for p := f; len(p) > 0; {
				k := 1 + rng.IntN(len(p))
				if n, err := c.Write(p[:k]); n != k || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v", k, n, err)
				}
				p = p[k:]
			}
			if c.wbuf != nil {
				t.Fatalf("a buffer is held after a frame of %d bytes", len(f))
			}
			got := w.writes[before:]
			wantWrites := (len(f) + ioBufSize - 1) / ioBufSize
			if len(got) != wantWrites {
				t.Errorf("a frame of %d bytes took %d writes, want %d", len(f), len(got), wantWrites)
			}
		}
		if got := bytes.Join(w.writes, nil); !bytes.Equal(got, want) {
			t.Fatalf("round %d: the connection got %d bytes that differ from the %d written", round, len(got), len(want))
		}
	}
}

// TestLeanConnReads: bytes net/http read before the hijack come first, then the
// connection's, through coder/websocket's 16-byte bufio reader. A read never passes the end
// of the frame under way, so once a frame is read the bufio reader is empty and await knows
// whether the next is already here; a drained read gives its buffer back.
func TestLeanConnReads(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	a, b, d := wsFrame(9000, true, 'a'), wsFrame(0, true, 0), wsFrame(30, true, 'd')
	c := &leanConn{Conn: server, wait: readableWaiter(server), early: a[:5]}
	c.held.Store(true)
	defer c.Close()
	br := bufio.NewReaderSize(c, 16)
	// The rest of a, and b and d, in one write: they arrive together.
	if _, err := client.Write(slices.Concat(a[5:], b, d)); err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]byte{a, b, d} {
		got := make([]byte, len(want))
		if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read %d bytes, %v; want the frame of %d", len(got), err, len(want))
		}
		if br.Buffered() != 0 {
			t.Fatalf("after a frame of %d bytes the bufio reader holds %d of the next", len(want), br.Buffered())
		}
		if len(want) != len(d) {
			awaitWithin(t, c, time.Second) // the next frame is here or in the kernel
		}
	}
	if c.rbuf != nil {
		t.Error("a buffer is held after every byte was read")
	}

	// Nothing here: await waits for the network.
	awaited := make(chan struct{})
	go func() { c.await(); close(awaited) }()
	select {
	case <-awaited:
		t.Fatal("await returned with nothing to read")
	case <-time.After(50 * time.Millisecond):
	}
	late := wsFrame(4, true, 'l')
	client.Write(late)
	select {
	case <-awaited:
	case <-time.After(5 * time.Second):
		t.Fatal("await did not return once a frame came")
	}
	awaitWithin(t, c, time.Second) // the frame is still unread
	got := make([]byte, len(late))
	if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, late) {
		t.Fatalf("read %v, %v; want %v", got, err, late)
	}
	client.Close()
	c.await()
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the client closed: %v, want EOF", err)
	}
	if c.rbuf != nil {
		t.Error("a buffer is held at the end of the stream")
	}
}

// awaitWithin fails unless c.await returns within d.
func awaitWithin(t *testing.T, c *leanConn, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.await(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("await waits with a frame to read")
	}
}

// TestLeanConnReadsDirect: over a connection with buffers of its own (TLS), reads go to it
// directly and still stop at each frame's end, header and payload.
func TestLeanConnReadsDirect(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	c := &leanConn{Conn: server, direct: true}
	defer c.Close()
	br := bufio.NewReaderSize(c, 16)
	frames := [][]byte{wsFrame(0, true, 0), wsFrame(3, true, 'x'), wsFrame(300, true, 'y'), wsFrame(70000, true, 'z')}
	go client.Write(slices.Concat(frames...)) // a pipe hands each read as much as it asks for
	for _, want := range frames {
		got := make([]byte, len(want))
		if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read %d bytes, %v; want the frame of %d", len(got), err, len(want))
		}
		if br.Buffered() != 0 {
			t.Fatalf("after a frame of %d bytes the bufio reader holds %d of the next", len(want), br.Buffered())
		}
	}
	if c.rbuf != nil {
		t.Error("a direct read took a buffer")
	}
}
