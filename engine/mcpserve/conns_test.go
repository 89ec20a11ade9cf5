package mcpserve_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/engine/mcpserve"
	"cockpit/internal/enginetest"
)

// serveHTTP serves the guarded handler on loopback with o until the test ends.
func serveHTTP(t *testing.T, o mcpserve.ServeOptions) string {
	t.Helper()
	f := enginetest.New(t)
	srv, err := mcpserve.New(f.Engine)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := mcpserve.EnsureToken(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.Handler(mcpserve.HTTPOptions{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := mcpserve.Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpserve.ServeHTTP(ctx, ln, h, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	return ln.Addr().String()
}

// guard bounds how long a test waits for the server to act: it stops a hung test, it is not
// a timing assertion.
const guard = 20 * time.Second

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(guard))
	return c
}

// noToken sends one request without a bearer token and reads the answer: its status and body.
func noToken(t *testing.T, c net.Conn, br *bufio.Reader) (int, string) {
	t.Helper()
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp.StatusCode, string(body)
}

// closedByServer reads until the server closes the connection; a read that times out means
// the connection was still held open after the guard.
func closedByServer(t *testing.T, c net.Conn, br *bufio.Reader, what string) {
	t.Helper()
	_, err := br.ReadByte()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: still open after %s, want it closed by the server", what, guard)
	}
	if err == nil {
		t.Fatalf("%s: got data, want the server to close it", what)
	}
}

// TestIdleConnectionsClosed (issue 27 item 7): a client without a token that keeps its
// connection open after its 401, and one that never sends a request, are both closed.
func TestIdleConnectionsClosed(t *testing.T) {
	addr := serveHTTP(t, mcpserve.ServeOptions{ReadHeaderTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond})
	c := dial(t, addr)
	br := bufio.NewReader(c)
	if code, body := noToken(t, c, br); code != http.StatusUnauthorized {
		t.Fatalf("without a token: %d %q, want 401", code, body)
	}
	closedByServer(t, c, br, "a kept-alive connection after a 401")
	silent := dial(t, addr)
	closedByServer(t, silent, bufio.NewReader(silent), "a connection that sends nothing")
}

// TestConnectionCap (issue 27 item 7): past MaxConns open connections the next is answered
// 503 saying why, and a slot that frees is served again.
func TestConnectionCap(t *testing.T) {
	addr := serveHTTP(t, mcpserve.ServeOptions{MaxConns: 2, ReadHeaderTimeout: time.Minute, IdleTimeout: time.Minute})
	held := []net.Conn{dial(t, addr), dial(t, addr)}
	extra := dial(t, addr)
	if code, body := noToken(t, extra, bufio.NewReader(extra)); code != http.StatusServiceUnavailable || !strings.Contains(body, "too many connections open (limit 2)") {
		t.Fatalf("third connection: %d %q, want 503 naming the limit", code, body)
	}
	held[0].Close()
	for deadline := time.Now().Add(guard); ; { // the server sees the close, then frees the slot
		c := dial(t, addr)
		code, body := noToken(t, c, bufio.NewReader(c))
		c.Close()
		if code == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one closed: still %d %q, want the freed slot served (401 without a token)", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
