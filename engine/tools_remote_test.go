package engine_test

import (
	"context"
	"testing"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

type echoCaller struct{ calls []string }

func (c *echoCaller) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	c.calls = append(c.calls, name)
	return jsonv.ObjectOf("tool", name), nil
}

// remoteFixture offers two of a broker server's tools: a plain read and a gated order tool
// read with the Alpaca profile (the fixture's paper broker takes the forwarded order).
func remoteFixture(t *testing.T) (*enginetest.Fixture, *echoCaller) {
	f := enginetest.New(t, enginetest.WithPolicy("[policy.agents.strategy]\nautonomy = \"full\"\n"))
	c := &echoCaller{}
	skipped := engine.RemoteTools(f.Engine.Tools, c, live.AlpacaMCP(), []engine.RemoteTool{
		{Name: "get_news", Description: "news", Class: live.ClassRead},
		{Name: "place_stock_order", Class: live.ClassWrite},
		{Name: "get_quote", Description: "a remote tool named like cockpit's own", Class: live.ClassRead},
	})
	if len(skipped) != 1 || skipped[0] != "get_quote" {
		t.Fatalf("skipped: got %v, want [get_quote]", skipped)
	}
	return f, c
}

func TestRemoteToolsReadPlainAndGateWrites(t *testing.T) {
	f, c := remoteFixture(t)
	if r := f.Call("get_news", map[string]any{"anything": "goes"}); !r.OK() || len(c.calls) != 1 {
		t.Fatalf("read: got %+v, calls %v", r, c.calls)
	}
	r := f.Call("place_stock_order", map[string]any{"symbol": "AAPL", "side": "buy", "qty": "2"})
	if !r.OK() || f.Placed() != 1 {
		t.Fatalf("gated order: got %s %s %s, placed %d", r.Status, r.Code, r.Detail, f.Placed())
	}
	if r := f.Call("place_stock_order", map[string]any{"symbol": "AAPL", "side": "buy", "qty": "1", "client_order_id": "mine"}); r.OK() {
		t.Fatal("a reserved argument was accepted")
	}
	// A shape the profile does not map (a bracket) is still denied before the server sees it;
	// a stop is an intent now (issue 29 item 2), valued and gated like any order.
	if r := f.Call("place_stock_order", map[string]any{"symbol": "AAPL", "side": "buy", "qty": "1", "order_class": "bracket", "take_profit_limit_price": "500"}); r.Code != live.ReasonNoIntent {
		t.Fatalf("bracket order: got %s, want %s", r.Code, live.ReasonNoIntent)
	}
	if r := f.Call("place_stock_order", map[string]any{"symbol": "AAPL", "side": "sell", "qty": "1", "type": "stop", "stop_price": "1"}); !r.OK() || f.Placed() != 2 {
		t.Fatalf("protective stop: got %s %s %s, placed %d", r.Status, r.Code, r.Detail, f.Placed())
	}
	if c.calls[len(c.calls)-1] != "get_news" {
		t.Fatalf("an order tool reached the plain caller: %v", c.calls)
	}
}

// TestRemoteOrderReview is a regression test: a broker server's order tool that breaches a
// limit went to review with no typed intent and crashed the engine (nil dereference). Now the
// human is shown the gate's intent and the exact arguments, and the approval places it.
func TestRemoteOrderReview(t *testing.T) {
	f, _ := remoteFixture(t)
	done := f.Human(f.Resolve(store.ApprovalApproved, "ok"))
	r := f.Call("place_stock_order", map[string]any{"symbol": "AAPL", "side": "buy", "notional": "6000"})
	<-done
	if !r.OK() || r.ApprovalID == "" || f.Placed() != 1 {
		t.Fatalf("approved remote order: got %s %s %s approval %q, placed %d", r.Status, r.Code, r.Detail, r.ApprovalID, f.Placed())
	}
	items, err := f.DB.Approvals(context.Background(), store.ApprovalApproved, 1)
	if err != nil || len(items) != 1 {
		t.Fatalf("approvals: %v %v", items, err)
	}
}

// TestRemoteToolWithoutClassIsGated (DV17): a broker server's tool registered without a class
// is a trade tool: the gate reads no order from it (DENY intent_unparsed) and the server is
// never called.
func TestRemoteToolWithoutClassIsGated(t *testing.T) {
	f := enginetest.New(t, enginetest.WithPolicy("[policy.agents.strategy]\nautonomy = \"full\"\n"))
	c := &echoCaller{}
	engine.RemoteTools(f.Engine.Tools, c, live.GenericMCP, []engine.RemoteTool{{Name: "get_market_summary"}, {Name: "other", Class: live.ClassUnknown}})
	for _, name := range []string{"get_market_summary", "other"} {
		if r := f.Call(name, map[string]any{"symbol": "AAPL"}); r.Decision != live.DecisionDeny || r.Code != live.ReasonNoIntent {
			t.Errorf("%s: got %s %s (%s), want deny %s", name, r.Decision, r.Code, r.Detail, live.ReasonNoIntent)
		}
	}
	if len(c.calls) != 0 || f.Placed() != 0 {
		t.Errorf("server calls %v, placed %d, want none", c.calls, f.Placed())
	}
}
