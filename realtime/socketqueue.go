package realtime

import (
	"context"
	"errors"
	"time"

	"github.com/coder/websocket"
)

// A socket's outgoing frames wait in a queue that a writer goroutine drains. The writer runs
// only while there are frames: an idle socket holds neither a goroutine nor a preallocated
// queue. One writer at a time keeps the socket's frames in order, and the queue's bound
// (HubOptions.QueueLen, frames not yet being written) drops a socket that cannot keep up.

// enqueue queues a frame without waiting. A socket whose queue is full cannot keep up: it
// is closed, and its client reconnects and resyncs through the REST lists, rather than
// slowing the delivery to everyone else or holding an unbounded backlog.
func (c *socket) enqueue(frame []byte) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if len(c.queue) >= c.h.opt.QueueLen {
		c.mu.Unlock()
		go c.shutdown(statusTryAgainLater, "too slow: events were dropped, resync and reconnect")
		return
	}
	c.queue = append(c.queue, frame)
	start := !c.writing
	if start {
		c.writing = true
		c.writers.Add(1)
	}
	c.mu.Unlock()
	if start {
		go c.drain()
	}
}

// startWriting lets the queue drain: until then (the auth ack, the user's presence) frames
// only queue. A socket starts out writing, as if its writer were busy.
func (c *socket) startWriting() {
	c.mu.Lock()
	start := !c.closed && len(c.queue) > 0
	c.writing = start
	if start {
		c.writers.Add(1)
	}
	c.mu.Unlock()
	if start {
		go c.drain()
	}
}

// drain writes the queued frames and ends when the queue is empty or the socket closed.
func (c *socket) drain() {
	defer c.writers.Done()
	for {
		c.mu.Lock()
		if c.closed || len(c.queue) == 0 {
			c.queue = nil // an idle socket keeps no backing array
			c.writing = false
			c.mu.Unlock()
			return
		}
		f := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.mu.Unlock()
		if err := c.write(f); err != nil {
			c.shutdown(statusPolicy, "write timed out") // no writer starts after it
			return
		}
	}
}

// write sends one frame within the write timeout, after which the connection is closed as
// coder/websocket closes it when a write's context ends. The timeout is a timer rather than
// the write's context because coder/websocket keeps the last write's context until the
// next write: for ever, on an idle socket.
func (c *socket) write(frame []byte) error {
	t := time.AfterFunc(c.h.opt.WriteTimeout, func() { c.conn.Close() })
	err := c.ws.Write(context.Background(), websocket.MessageText, frame)
	if !t.Stop() && err == nil {
		err = errWriteTimeout // written as the timer closed the connection
	}
	return err
}

var errWriteTimeout = errors.New("write timed out")

// shutdown closes the socket once; queued frames are dropped.
func (c *socket) shutdown(code websocket.StatusCode, reason string) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed, c.queue = true, nil
	c.mu.Unlock()
	go c.ws.Close(code, reason)
}
