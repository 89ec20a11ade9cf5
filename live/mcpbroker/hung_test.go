package mcpbroker_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live"
	"cockpit/live/gate"
)

// hangFirst makes the first session that calls a tool hang on every call, whatever the
// client cancels, until stop is closed; later sessions answer.
func hangFirst(stop <-chan struct{}) mcp.Middleware {
	var first atomic.Pointer[mcp.ServerSession]
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "tools/call" {
				first.CompareAndSwap(nil, ss)
				if first.Load() == ss {
					<-stop
					return nil, errors.New("released at the end of the test")
				}
			}
			return next(ctx, method, req)
		}
	}
}

// TestHungServerIsReplaced: a server that stops answering fails each call by the call
// timeout; after hungCalls (3) such calls in a row the next call connects again (over stdio,
// a new server process), and orders and a flatten work again. Before, a hung server was never
// replaced: every call timed out for good, flatten included.
func TestHungServerIsReplaced(t *testing.T) {
	ctx := context.Background()
	r, dials := hungRig(t, 200*time.Millisecond)
	for i := range 3 {
		if _, err := r.mb.Quote(ctx, "MSFT"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d to the hung server: got %v, want the call timeout", i+1, err)
		}
		if got := dials.Load(); got != 1 {
			t.Fatalf("after %d timed-out calls: %d sessions dialled, want 1 (a slow answer is not a broken server)", i+1, got)
		}
	}
	if q, err := r.mb.Quote(ctx, "MSFT"); err != nil || q.Last.Sign() <= 0 {
		t.Fatalf("the call after three timeouts: %+v, %v; want a quote over a new session", q, err)
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("sessions dialled: %d, want 2", got)
	}
	rep := r.gate.Flatten(ctx, r.mb, "mcppaper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("t", "t"), Why: "test"})
	if !rep.Flat() || !strings.HasPrefix(rep.Summary(), "FLAT (verified") {
		t.Fatalf("flatten after the hung server was replaced: %q, want FLAT (verified …)", rep.Summary())
	}
}

// TestCallersDeadlineIsNotAHungServer: calls cut off by their caller's own deadline never
// count as a hung server.
func TestCallersDeadlineIsNotAHungServer(t *testing.T) {
	r, dials := hungRig(t, time.Hour)
	for range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := r.mb.Quote(ctx, "MSFT")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want the caller's deadline", err)
		}
	}
	if got := dials.Load(); got != 1 {
		t.Errorf("sessions dialled: %d, want 1", got)
	}
}

// hungRig is linkRigWith over hangFirst; the hung calls are let go before the rig's sessions
// close (a session's Close waits for its calls).
func hungRig(t *testing.T, timeout time.Duration) (*rig, *atomic.Int64) {
	stop := make(chan struct{})
	r, dials := linkRigWith(t, timeout, hangFirst(stop))
	t.Cleanup(func() { close(stop) })
	return r, dials
}
