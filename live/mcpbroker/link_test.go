package mcpbroker_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/mcpbroker"
	"cockpit/live/mcpbroker/mcppaper"
	"cockpit/live/paper"
)

// faultEnv makes TestHelperProcess answer a call naming the symbol BOMB badly: "huge" with a
// 50 MB reply, "garbage" with a line that is not JSON.
const faultEnv = "COCKPIT_MCPPAPER_FAULT"

// bomb answers a tools/call whose arguments name BOMB with a reply of size bytes (garbage, when
// set, runs first), and passes every other request on.
func bomb(size int, garbage func()) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && bytes.Contains(p.Arguments, []byte(`"BOMB"`)) {
				if garbage != nil {
					garbage()
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", size)}}}, nil
			}
			return next(ctx, method, req)
		}
	}
}

// badReplyTimeout is the per-call timeout of the bad-reply tests: longer than any run, so a bad
// reply's call ends by the bad reply itself, never by its deadline (a deadline does not break
// the link, by design). Under -race on a loaded machine, making and reading an oversized reply
// took more than the default 30s; the BOMB call then timed out, and the next call either failed
// on the frame still arriving over the old session or passed over it without reconnecting. A
// hang is go test's -timeout to catch.
const badReplyTimeout = time.Hour

// linkRig is the paper broker served over the in-memory transport behind a server that
// answers BOMB with an oversized reply; the client redials a fresh in-memory pair.
func linkRig(t *testing.T) (*rig, *atomic.Int64) {
	t.Helper()
	return linkRigWith(t, badReplyTimeout, bomb(mcp.DefaultMaxLineLength+1<<20, nil))
}

// linkRigWith is linkRig with the client's call timeout and the server's middleware given.
func linkRigWith(t *testing.T, timeout time.Duration, mw mcp.Middleware) (*rig, *atomic.Int64) {
	t.Helper()
	r := &rig{root: livetest.Root(t), clock: livetest.NewClock(livetest.Epoch), audit: &auditsink.Memory{}}
	p, err := paper.New(paper.Config{Key: "mcppaper", Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: r.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	r.paper = p
	srv, err := mcppaper.New(p, "alpaca", mcppaper.Options{Now: r.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(mw)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dials := &atomic.Int64{}
	dial := func() (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		dials.Add(1)
		return ct, nil
	}
	ct, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	r.mb, err = mcpbroker.Connect(ctx, ct, mcpbroker.Options{Key: "mcppaper", Profile: mcpbroker.ProfileFor("alpaca", "mcppaper"), Mode: "paper",
		Now: r.clock.Now, Redial: dial, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.mb.Close() })
	livetest.Commit(t, r.root, "mcppaper", "", r.clock.Now())
	r.gate = &gate.Gate{Root: r.root, Now: r.clock.Now, Audit: r.audit, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(r.root)}
	return r, dials
}

// TestOversizedReplyReconnects (issue 27 item 7): a reply over the 16 MiB cap fails that call
// only: the next call connects again and works, and a flatten afterwards closes the book and
// verifies it flat.
func TestOversizedReplyReconnects(t *testing.T) {
	ctx := context.Background()
	r, dials := linkRig(t)
	if d := r.gate.Submit(ctx, gate.Submission{Broker: r.mb, Profile: r.mb.Profile, Tool: "place_stock_order", Args: jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "qty", "3"),
		Actor: live.Agent("t", "s")}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("order before the bad reply: %s %s", d.Verdict, d.Message())
	}
	if _, err := r.mb.Quote(ctx, "BOMB"); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an oversized reply: got %v, want the call failed by the reply", err)
	}
	if q, err := r.mb.Quote(ctx, "MSFT"); err != nil || q.Last.Sign() <= 0 {
		t.Fatalf("the call after the oversized reply: %+v, %v; want a quote over a new session", q, err)
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("sessions dialled: %d, want 2 (the first and one reconnect)", got)
	}
	if h := r.mb.Health(); !h.Connected {
		t.Errorf("health after the reconnect: %+v, want connected", h)
	}
	rep := r.gate.Flatten(ctx, r.mb, "mcppaper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("t", "t"), Why: "test"})
	if !rep.Flat() || !strings.HasPrefix(rep.Summary(), "FLAT (verified") {
		t.Fatalf("flatten after the oversized reply: %q, want FLAT (verified …)", rep.Summary())
	}
}

// TestServerErrorKeepsTheLink: the server's own error reply (an unknown tool) fails the call
// and leaves the session as it is.
func TestServerErrorKeepsTheLink(t *testing.T) {
	r, dials := linkRig(t)
	if _, err := r.mb.CallTool(context.Background(), "no_such_tool", jsonv.NewObject()); err == nil {
		t.Fatal("an unknown tool: got a result, want the server's error")
	}
	if _, err := r.mb.Quote(context.Background(), "MSFT"); err != nil {
		t.Fatal(err)
	}
	if got := dials.Load(); got != 1 {
		t.Errorf("sessions dialled: %d, want 1 (an error reply is not a broken link)", got)
	}
}

// TestClosedBrokerStaysClosed: Close is for good; no call connects again.
func TestClosedBrokerStaysClosed(t *testing.T) {
	r, dials := linkRig(t)
	r.mb.Close()
	for range 2 {
		if _, err := r.mb.Quote(context.Background(), "MSFT"); err == nil {
			t.Fatal("a quote after Close")
		}
	}
	if got := dials.Load(); got != 1 {
		t.Errorf("sessions dialled: %d, want 1", got)
	}
}

// TestBadRepliesOverStdio (issue 27 item 7): a real stdio server answers once with 50 MB, once
// with a line that is not JSON: each fails its call, and the next call reaches a new server
// process.
func TestBadRepliesOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, fault := range []string{"huge", "garbage"} {
		t.Run(fault, func(t *testing.T) {
			env := map[string]string{helperEnv: "alpaca", faultEnv: fault}
			ep := mcpbroker.Endpoint{Command: []string{os.Args[0], "-test.run=^TestHelperProcess$"}, EnvPass: []string{helperEnv, faultEnv},
				Getenv: func(k string) string { return env[k] }}
			tr, err := ep.Transport()
			if err != nil {
				t.Fatal(err)
			}
			var redials atomic.Int64 // each redial starts a new server process
			redial := func() (mcp.Transport, error) {
				redials.Add(1)
				return ep.Transport()
			}
			mb, err := mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: "alp", Profile: mcpbroker.ProfileFor("alpaca", "alp"),
				Redial: redial, Timeout: badReplyTimeout})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer mb.Close()
			if _, err := mb.Quote(context.Background(), "BOMB"); err == nil || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a bad reply: got %v, want the call failed by the reply", err)
			}
			if q, err := mb.Quote(context.Background(), "MSFT"); err != nil || q.Last.Sign() <= 0 {
				t.Fatalf("the call after the bad reply: %+v, %v; want a quote from a new server process", q, err)
			}
			if got := redials.Load(); got != 1 {
				t.Errorf("server processes started after the first: %d, want 1 (the call after the bad reply reconnects)", got)
			}
		})
	}
}

// TestOversizedReplyOverHTTP: a streamable HTTP reply over Endpoint.MaxReply fails its call;
// the next call works over a new session.
func TestOversizedReplyOverHTTP(t *testing.T) {
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: livetest.NewClock(livetest.Epoch).Now})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcppaper.New(p, "alpaca", mcppaper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(bomb(2<<20, nil))
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	defer ts.Close()
	ep := mcpbroker.Endpoint{URL: ts.URL, MaxReply: 1 << 20}
	tr, err := ep.Transport()
	if err != nil {
		t.Fatal(err)
	}
	mb, err := mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: "alp", Profile: mcpbroker.ProfileFor("alpaca", "alp"), Redial: ep.Transport})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer mb.Close()
	if _, err := mb.Quote(context.Background(), "BOMB"); err == nil || !strings.Contains(err.Error(), "over 1048576 bytes") {
		t.Fatalf("a 2 MiB reply under a 1 MiB cap: got %v, want the call failed naming the cap", err)
	}
	if _, err := mb.Quote(context.Background(), "MSFT"); err != nil {
		t.Fatalf("the call after the oversized reply: %v", err)
	}
}

// helperFault is TestHelperProcess's answer to BOMB, from faultEnv.
func helperFault(srv *mcp.Server) {
	switch os.Getenv(faultEnv) {
	case "huge":
		srv.AddReceivingMiddleware(bomb(50<<20, nil))
	case "garbage":
		srv.AddReceivingMiddleware(bomb(1, func() { os.Stdout.WriteString("this is not JSON\n") }))
	}
}
