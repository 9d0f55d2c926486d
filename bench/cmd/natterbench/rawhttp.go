package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// rawConn is the load's HTTP/1.1 client: one keep-alive connection, a request written
// with a single write, a response read through one buffered reader and parsed no further
// than the status, the framing headers and the body's length. The load generator shares
// the machine's two cores with natter and with PostgreSQL; net/http's client spent about
// 35 µs of CPU per request here, three times what pgbench's libpq client spends per
// transaction, so a lean client keeps the generator from deciding the figures. It speaks
// only what natter and the bare server answer: Content-Length or chunked bodies,
// keep-alive, and Connection: close.
type rawConn struct {
	addr     string
	deadline time.Time // for every read and write; the run's hard deadline
	dial     func() (net.Conn, error)

	c    net.Conn
	br   *bufio.Reader
	wbuf []byte
}

// errMalformed is a response the client cannot parse.
var errMalformed = errors.New("malformed HTTP response")

// header is one request header, written as given.
type header struct{ name, value string }

// roundTrip sends one request and reads its response to the end. It returns the status
// and, in sample, the start of the body (for error reports). After an error the
// connection is closed, and the next call dials again.
func (rc *rawConn) roundTrip(method string, path []byte, hdrs []header, body []byte, sample []byte) (status, n int, err error) {
	if rc.c == nil {
		c, err := rc.dial()
		if err != nil {
			return 0, 0, err
		}
		if !rc.deadline.IsZero() {
			c.SetDeadline(rc.deadline)
		}
		rc.c = c
		if rc.br == nil {
			rc.br = bufio.NewReaderSize(c, 16<<10)
		} else {
			rc.br.Reset(c)
		}
	}
	b := rc.wbuf[:0]
	b = append(append(append(b, method...), ' '), path...)
	b = append(append(append(b, " HTTP/1.1\r\nHost: "...), rc.addr...), "\r\n"...)
	for _, h := range hdrs {
		b = append(append(append(append(b, h.name...), ": "...), h.value...), "\r\n"...)
	}
	if len(body) > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
		b = strconv.AppendInt(append(b, "Content-Length: "...), int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(append(b, "\r\n"...), body...)
	rc.wbuf = b
	if _, err = rc.c.Write(b); err == nil {
		status, n, err = rc.readResponse(sample)
	}
	if err != nil {
		rc.close()
	}
	return status, n, err
}

func (rc *rawConn) close() {
	if rc.c != nil {
		rc.c.Close()
		rc.c = nil
	}
}

// readResponse reads the status line, the headers and the body; an interim 1xx response
// is skipped for the final one that follows it.
func (rc *rawConn) readResponse(sample []byte) (status, n int, err error) {
	for {
		if status, n, err = rc.readOne(sample); err != nil || status/100 != 1 || status == 101 {
			return status, n, err
		}
	}
}

// readOne reads one response: the status line, the headers and the body.
func (rc *rawConn) readOne(sample []byte) (status, n int, err error) {
	line, err := rc.br.ReadSlice('\n')
	if err != nil {
		return 0, 0, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, 0, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, 0, fmt.Errorf("%w: status line %q", errMalformed, line)
	}
	length, chunked, closing := -1, false, false
	for {
		line, err = rc.br.ReadSlice('\n')
		if err != nil {
			return 0, 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return 0, 0, fmt.Errorf("%w: header %q", errMalformed, line)
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, 0, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case status == 204 || status == 304 || status/100 == 1:
	case chunked:
		n, err = rc.readChunked(sample)
	case length >= 0:
		n, err = rc.discard(length, sample)
	default: // delimited by the connection's end
		n, err = rc.discard(-1, sample)
		if err == nil {
			closing = true
		}
	}
	if err == nil && closing {
		rc.close()
	}
	return status, n, err
}

// discard reads length bytes (to EOF when negative), copying the first into sample.
func (rc *rawConn) discard(length int, sample []byte) (int, error) {
	n := 0
	if length < 0 {
		n, _ = io.ReadFull(rc.br, sample)
		_, err := io.Copy(io.Discard, rc.br)
		return n, err
	}
	if len(sample) > 0 {
		var err error
		if n, err = io.ReadFull(rc.br, sample[:min(len(sample), length)]); err != nil {
			return n, unexpected(err)
		}
		length -= n
	}
	_, err := rc.br.Discard(length)
	return n, unexpected(err)
}

func (rc *rawConn) readChunked(sample []byte) (int, error) {
	n := 0
	for {
		line, err := rc.br.ReadSlice('\n')
		if err != nil {
			return n, unexpected(err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 31)
		if err != nil {
			return n, fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if size == 0 {
			for { // trailers, up to the blank line
				line, err := rc.br.ReadSlice('\n')
				if err != nil {
					return n, unexpected(err)
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return n, nil
				}
			}
		}
		m, err := rc.discard(int(size), sample[n:])
		n += m
		if err != nil {
			return n, err
		}
		if _, err := rc.br.Discard(2); err != nil { // the chunk's CRLF
			return n, unexpected(err)
		}
	}
}

// unexpected turns io.EOF in the middle of a response into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
