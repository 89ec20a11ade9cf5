package mcpserve

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of ServeOptions.
const (
	DefaultMaxConns          = 64
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 30 * time.Second
)

// refuseTimeout bounds the writing of a refusal and the reading of what the client sent.
const refuseTimeout = 250 * time.Millisecond

// ServeOptions shape the HTTP server's connections: no client holds one without using it, and
// no client can open more than the server serves.
type ServeOptions struct {
	// MaxConns is how many connections may be open at once; the next is answered 503 with
	// the reason and closed (default DefaultMaxConns).
	MaxConns int
	// ReadHeaderTimeout closes a connection whose request headers do not arrive in time.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends no next request in time.
	IdleTimeout time.Duration
	Log         *slog.Logger
}

func (o ServeOptions) withDefaults() ServeOptions {
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// capListener admits at most cap(slots) open connections; one past it is answered with
// refusal and closed, without reaching the HTTP server.
type capListener struct {
	net.Listener
	slots    chan struct{}
	refusing chan struct{} // refusals being written; past its capacity a connection is just closed
	refusal  []byte
	log      *slog.Logger
	logged   atomic.Int64 // unix nanos of the last refusal logged
}

func newCapListener(ln net.Listener, max int, log *slog.Logger) *capListener {
	body := fmt.Sprintf("cockpit serve-mcp: too many connections open (limit %d); close idle ones or try again later\n", max)
	refusal := fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\n"+
		"Connection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	return &capListener{Listener: ln, slots: make(chan struct{}, max), refusing: make(chan struct{}, max),
		refusal: []byte(refusal), log: log}
}

// Accept returns the next connection there is a slot for; the slot frees when it closes.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, free: func() { <-l.slots }}, nil
		default:
			l.refuse(c)
		}
	}
}

// refuse answers a connection past the cap 503 and closes it. The answer goes at once (a
// fresh connection's buffer takes it); what the client sent is then read for a moment in the
// background, so it reads the answer rather than a reset, unless a flood keeps too many such
// reads going.
func (l *capListener) refuse(c net.Conn) {
	if now := time.Now().UnixNano(); now-l.logged.Swap(now) > int64(10*time.Second) { // a flood: one line in ten seconds
		l.log.Warn("serve-mcp: connection refused: too many open", "remote", c.RemoteAddr().String(), "limit", cap(l.slots))
	}
	c.SetDeadline(time.Now().Add(refuseTimeout))
	if _, err := c.Write(l.refusal); err != nil {
		c.Close()
		return
	}
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		hc.CloseWrite()
	}
	select {
	case l.refusing <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		io.Copy(io.Discard, io.LimitReader(c, MaxBody))
	}()
}

// slotConn is an admitted connection; closing it frees its slot once.
type slotConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
