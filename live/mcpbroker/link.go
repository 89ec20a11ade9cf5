package mcpbroker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// link is the broker's MCP client session. A reply that breaks it (over the size cap, not
// JSON, a transport that failed) fails the call under way; the next call connects again
// through redial, so one bad reply does not cut cockpit off from the broker (flatten included).
type link struct {
	key     string
	client  *mcp.Client
	redial  func() (mcp.Transport, error) // nil: a broken link stays broken
	timeout time.Duration

	mu     sync.Mutex
	cs     *mcp.ClientSession
	t      mcp.Transport // cs's transport (its diagnostics explain a broken link)
	gen    int           // cs's generation, so a failure on a replaced session breaks nothing
	broken bool          // cs is broken: the next call connects again
	hung   int           // calls in a row on cs that ran out of the call timeout
	closed bool          // Close was called: never connect again
}

// dial connects one client session over t; a failure says what the server said, when its
// transport knows (a stdio server's exit status and last stderr lines).
func (l *link) dial(ctx context.Context, t mcp.Transport) (*mcp.ClientSession, error) {
	cctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	cs, err := l.client.Connect(cctx, t, nil)
	if err != nil {
		return nil, explain(err, t)
	}
	return cs, nil
}

// explain adds what t knows of its server's end to err.
func explain(err error, t mcp.Transport) error {
	if d, ok := t.(interface{ Diagnostics() string }); ok && err != nil {
		if s := d.Diagnostics(); s != "" {
			return fmt.Errorf("%w (%s)", err, s)
		}
	}
	return err
}

// use sets cs (over t) as the link's session and watches it: a session that ends by itself
// (the server went away) marks the link broken (mu held).
func (l *link) use(cs *mcp.ClientSession, t mcp.Transport) {
	l.cs, l.t, l.broken, l.hung = cs, t, false, 0
	l.gen++
	gen := l.gen
	go func() {
		cs.Wait()
		l.mu.Lock()
		if gen == l.gen && !l.closed {
			l.broken = true
		}
		l.mu.Unlock()
	}()
}

// session returns the session to call on, connecting again first when the last one broke.
func (l *link) session(ctx context.Context) (*mcp.ClientSession, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.broken || l.closed || l.redial == nil {
		return l.cs, l.gen, nil // a closed or unrecoverable session fails the call itself
	}
	t, err := l.redial()
	if err != nil {
		return nil, l.gen, fmt.Errorf("mcp broker %s: reconnect: %w", l.key, err)
	}
	cs, err := l.dial(ctx, t)
	if err != nil {
		return nil, l.gen, fmt.Errorf("mcp broker %s: reconnect: %w", l.key, err)
	}
	old := l.cs
	l.use(cs, t)
	go old.Close() // a stdio server may take its terminate grace to go
	return l.cs, l.gen, nil
}

// hungCalls is how many calls in a row may run out of the call timeout on one session
// before the server is taken for hung and the next call connects again (a slow answer is
// not a broken server; calls that never answer are).
const hungCalls = 3

// failed notes a call's outcome on the session of generation gen: an error that says the
// link itself broke (not the server's error reply, not a context ending) marks it for
// reconnection, and comes back with what the transport knows of the server's end; ranOut
// (the call ran out of the call timeout) counts towards hungCalls, an answer resets that.
func (l *link) failed(gen int, err error, ranOut bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.gen {
		return err
	}
	switch {
	case ranOut:
		if l.hung++; l.hung >= hungCalls && !l.closed && l.redial != nil {
			l.broken = true
		}
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded): // the caller's
		return err
	case !breaksLink(err): // an answer, a result or the server's error reply
		l.hung = 0
		return err
	}
	if !l.closed {
		l.broken = true
	}
	return explain(err, l.t)
}

// breaksLink reports whether a call's error leaves the session unusable: anything but a
// JSON-RPC error the server answered with, or the call's own context ending.
func breaksLink(err error) bool {
	var wire *jsonrpc.Error
	switch {
	case err == nil, errors.As(err, &wire), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}

// close ends the session for good.
func (l *link) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	return l.cs.Close()
}
