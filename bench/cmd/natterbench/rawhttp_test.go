package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRawConnAgainstNetHTTP drives the load's client against a standard server: the
// request must arrive as sent, and every framing the server picks must be read to its end
// on one keep-alive connection.
func TestRawConnAgainstNetHTTP(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/echo":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, r.Method+" "+r.RequestURI+" "+r.Header.Get("Apikey")+" "+r.Header.Get("OnBehalfOf")+" "+string(body))
		case "/chunked":
			f := w.(http.Flusher)
			io.WriteString(w, "first,")
			f.Flush()
			io.WriteString(w, strings.Repeat("x", 3000))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/missing":
			http.Error(w, `{"error":{"code":"ERR_NOT_FOUND"}}`, http.StatusNotFound)
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	rc := rawConn{addr: addr, deadline: time.Now().Add(10 * time.Second), dial: func() (net.Conn, error) { return net.Dial("tcp", addr) }}
	defer rc.close()
	var sample [512]byte

	hdrs := []header{{"Apikey", "k1"}, {"OnBehalfOf", "alice"}}
	for range 3 {
		status, n, err := rc.roundTrip("POST", []byte("/echo?x=%20"), hdrs, []byte(`{"a":1}`), sample[:])
		if err != nil || status != 200 {
			t.Fatalf("echo: %d %v", status, err)
		}
		if got, want := string(sample[:n]), `POST /echo?x=%20 k1 alice {"a":1}`; got != want {
			t.Fatalf("echo: got %q, want %q", got, want)
		}
		status, n, err = rc.roundTrip("GET", []byte("/chunked"), nil, nil, sample[:])
		if err != nil || status != 200 || string(sample[:n]) != "first,"+strings.Repeat("x", 512-6) {
			t.Fatalf("chunked: %d %v %q", status, err, sample[:n])
		}
		if status, _, err = rc.roundTrip("DELETE", []byte("/empty"), nil, nil, sample[:]); err != nil || status != 204 {
			t.Fatalf("empty: %d %v", status, err)
		}
		status, n, err = rc.roundTrip("GET", []byte("/missing"), nil, nil, sample[:])
		if err != nil || status != 404 || !strings.Contains(string(sample[:n]), "ERR_NOT_FOUND") {
			t.Fatalf("missing: %d %v %q", status, err, sample[:n])
		}
	}
	if got := conns.Load(); got != 1 {
		t.Fatalf("%d connections for keep-alive requests, want 1", got)
	}
	if status, n, err := rc.roundTrip("GET", []byte("/close"), nil, nil, sample[:]); err != nil || status != 200 || string(sample[:n]) != "bye" {
		t.Fatalf("close: %d %v %q", status, err, sample[:n])
	}
	if rc.c != nil {
		t.Fatal("the connection stayed open after Connection: close")
	}
	if status, _, err := rc.roundTrip("GET", []byte("/echo"), nil, nil, sample[:]); err != nil || status != 200 {
		t.Fatalf("after close: %d %v", status, err)
	}
	if got := conns.Load(); got != 2 {
		t.Fatalf("%d connections after a Connection: close, want 2", got)
	}
}

// TestRawConnSkipsInterimResponses: a 100 Continue before the final response is read past,
// so the connection stays in step.
func TestRawConnSkipsInterimResponses(t *testing.T) {
	rc := scripted(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		for _, resp := range []string{
			"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nfirst",
			"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond",
		} {
			for { // the request's head; it has no body
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if line == "\r\n" {
					break
				}
			}
			io.WriteString(c, resp)
		}
	})
	var sample [512]byte
	for _, want := range []struct {
		status int
		body   string
	}{{201, "first"}, {200, "second"}} {
		status, n, err := rc.roundTrip("GET", []byte("/"), nil, nil, sample[:])
		if err != nil || status != want.status || string(sample[:n]) != want.body {
			t.Fatalf("got %d %q %v, want %d %q", status, sample[:n], err, want.status, want.body)
		}
	}
}

// TestRawConnRejectsBrokenResponses: a response the client cannot frame is an error, and
// the connection is dropped rather than read out of step.
func TestRawConnRejectsBrokenResponses(t *testing.T) {
	for name, resp := range map[string]string{
		"not HTTP":             "SSH-2.0-OpenSSH\r\n\r\n",
		"bad status":           "HTTP/1.1 2x0 OK\r\n\r\n",
		"bad length":           "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n",
		"header with no colon": "HTTP/1.1 200 OK\r\nnonsense\r\n\r\n",
		"bad chunk":            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"short body":           "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
	} {
		t.Run(name, func(t *testing.T) {
			rc := scripted(t, func(c net.Conn) {
				bufio.NewReader(c).ReadString('\n')
				io.WriteString(c, resp)
			})
			var sample [512]byte
			_, _, err := rc.roundTrip("GET", []byte("/"), nil, nil, sample[:])
			if err == nil {
				t.Fatal("no error")
			}
			if name != "short body" && !errors.Is(err, errMalformed) {
				t.Fatalf("error %v is not errMalformed", err)
			}
			if rc.c != nil {
				t.Fatal("the connection was kept after a broken response")
			}
		})
	}
}

// scripted starts a loopback server whose first connection is handed to serve, and
// returns a client for it; both end with the test.
func scripted(t *testing.T, serve func(c net.Conn)) *rawConn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	addr := ln.Addr().String()
	rc := &rawConn{addr: addr, deadline: time.Now().Add(5 * time.Second), dial: func() (net.Conn, error) { return net.Dial("tcp", addr) }}
	t.Cleanup(rc.close)
	return rc
}
