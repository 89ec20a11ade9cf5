package mcpbroker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mcpbroker/mcppaper"
	"cockpit/live/money"
)

func amt(s string) *money.Amount { a := money.MustParse(s); return &a }

// TestProfilesOverInMemoryServer trades the paper broker through each profile's tool names:
// reads, a gated order through the remote tool, a typed order (cockpit's own place_order and
// flatten use it), positions with quantities, open orders, cancel, and health.
func TestProfilesOverInMemoryServer(t *testing.T) {
	tests := []struct {
		profile, place string
		args           *jsonv.Object
	}{
		{"robinhood", "place_equity_order", jsonv.ObjectOf("symbol", "aapl", "side", "buy", "instrument_type", "equity", "quantity", "2")},
		{"alpaca", "place_stock_order", jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "qty", "2", "type", "market")},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			ctx := context.Background()
			r := newRig(t, "mcppaper", tt.profile, mcppaper.Options{})
			q, err := r.mb.Quote(ctx, "AAPL")
			if err != nil || q.Last.Sign() <= 0 {
				t.Fatalf("Quote: got %+v, %v; want a positive price", q, err)
			}
			d := r.gate.Submit(ctx, gate.Submission{Broker: r.mb, Profile: r.mb.Profile, Tool: tt.place, Args: tt.args, Actor: live.Agent("t", "s")})
			if d.Outcome != live.OutcomeAccepted || d.Order == nil || d.Order.ID == "" {
				t.Fatalf("gated order: got %s %s %v, want accepted with an order id", d.Verdict, d.Outcome, d.Denial)
			}
			two := money.FromInt(2)
			if _, err := r.mb.PlaceOrder(ctx, live.OrderRequest{Symbol: "MSFT", Side: live.Buy, Type: live.Market, Quantity: &two, ClientOrderID: "c-1"}); err != nil {
				t.Fatalf("typed PlaceOrder: %v", err)
			}
			ps, err := r.mb.Positions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range ps {
				got[p.Symbol] = p.Qty.String()
			}
			if got["AAPL"] != "2" || got["MSFT"] != "2" {
				t.Fatalf("positions: got %v, want AAPL 2 and MSFT 2", got)
			}
			a, err := r.mb.Account(ctx)
			if err != nil || a.Cash.Sign() <= 0 {
				t.Fatalf("Account: got %+v, %v", a, err)
			}
			lim := money.MustParse("1.00")
			o, err := r.mb.PlaceOrder(ctx, live.OrderRequest{Symbol: "SPY", Side: live.Buy, Type: live.Limit, Quantity: &two, LimitPrice: &lim})
			if err != nil {
				t.Fatalf("resting limit order: %v", err)
			}
			open, err := r.mb.OpenOrders(ctx)
			if err != nil || len(open) != 1 || open[0].ID != o.ID {
				t.Fatalf("OpenOrders: got %+v, %v; want the one resting order %s", open, err, o.ID)
			}
			if err := r.mb.CancelOrder(ctx, o.ID); err != nil {
				t.Fatalf("CancelOrder: %v", err)
			}
			if open, _ := r.mb.OpenOrders(ctx); len(open) != 0 {
				t.Fatalf("OpenOrders after cancel: got %d, want 0", len(open))
			}
			if h := r.mb.Health(); !h.Connected || h.Mode != "paper" || h.LastError != "" {
				t.Fatalf("Health: got %+v", h)
			}
		})
	}
}

// TestGateThroughAdapter: an oversize order pauses for a human, a halt denies, an unknown
// tool and a cancel through the remote tool carry no intent and are denied, and flatten
// closes the book through the broker's reads and ends verified flat.
func TestGateThroughAdapter(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, "mcppaper", "alpaca", mcppaper.Options{Hostile: true})
	sub := func(tool string, args *jsonv.Object) gate.Decision {
		return r.gate.Submit(ctx, gate.Submission{Broker: r.mb, Profile: r.mb.Profile, Tool: tool, Args: args, Actor: live.Agent("t", "s")})
	}
	if d := sub("place_stock_order", jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "qty", "3")); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("small order: got %s %s", d.Verdict, d.Outcome)
	}
	if d := sub("place_stock_order", jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "notional", "9000")); d.Verdict != live.PauseForReauth {
		t.Fatalf("oversize order: got %s, want pause_for_reauth", d.Verdict)
	}
	for _, tool := range []string{"brand_new_order", "cancel_order_by_id", "place_option_order"} {
		args := jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "qty", "1", "order_id", "x", "legs", []any{})
		if d := sub(tool, args); d.Verdict != live.Deny || d.Reason != live.ReasonNoIntent {
			t.Fatalf("%s: got %s %s, want deny %s", tool, d.Verdict, d.Reason, live.ReasonNoIntent)
		}
	}
	if _, err := halt.Trip(r.root, live.HaltSentinel, live.BrokerScope("mcppaper"), "test", "test", r.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if d := sub("place_stock_order", jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "qty", "1")); d.Verdict != live.Deny || d.Reason != live.ReasonHalted {
		t.Fatalf("halted: got %s %s, want deny %s", d.Verdict, d.Reason, live.ReasonHalted)
	}
	rep := r.gate.Flatten(ctx, r.mb, "mcppaper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("t", "t"), Why: "test"})
	if !rep.Flat() || !strings.HasPrefix(rep.Summary(), "FLAT (verified") {
		t.Fatalf("flatten: got %q, want FLAT (verified …)", rep.Summary())
	}
	ps, _ := r.paper.Positions(ctx)
	for _, p := range ps {
		if !p.Qty.IsZero() {
			t.Fatalf("paper book after flatten: %s %s", p.Symbol, p.Qty)
		}
	}
}

// TestPositionsWithoutQuantityAreNotFlat is a regression test: positions read through a
// tool-shaped broker used to come back without quantities, so flatten closed nothing and
// reported the book flat. A row with a value and no quantity is a held position whose
// quantity is unknown (flatten reports it NOT FLAT; the gate counts its value, issue 28).
func TestPositionsWithoutQuantityAreNotFlat(t *testing.T) {
	got, err := live.ParsePositionList(jsonv.ObjectOf("positions", []any{jsonv.ObjectOf("symbol", "AAPL", "market_value", jsonv.Number("500"))}))
	if err != nil || len(got) != 1 || !got[0].QtyUnknown || !got[0].Open() || got[0].MarketValue.String() != "500" {
		t.Fatalf("ParsePositionList: got %+v, %v; want AAPL held, value 500, quantity unknown", got, err)
	}
	got, err = live.ParsePositionList([]any{jsonv.ObjectOf("symbol", "tsla", "qty", "3", "market_value", "750", "side", "short")})
	if err != nil || len(got) != 1 || got[0].Symbol != "TSLA" || got[0].Qty.String() != "-3" {
		t.Fatalf("ParsePositionList: got %+v, %v; want TSLA -3", got, err)
	}
}

// TestHealthAfterFailure: a call on a closed session reports the link down, redacted.
func TestHealthAfterFailure(t *testing.T) {
	r := newRig(t, "mcppaper", "robinhood", mcppaper.Options{})
	r.mb.Close()
	_, err := r.mb.Quote(context.Background(), "AAPL")
	if err == nil || !errors.Is(err, live.ErrTransport) {
		t.Fatalf("Quote on a closed session: got %v, want a transport error", err)
	}
	if h := r.mb.Health(); h.Connected || h.LastError == "" {
		t.Fatalf("Health: got %+v, want disconnected with an error", h)
	}
}

// TestBarsThroughAlpacaProfile: the strategy's bars come through the server's get_stock_bars.
func TestBarsThroughAlpacaProfile(t *testing.T) {
	r := newRig(t, "mcppaper", "alpaca", mcppaper.Options{})
	if !r.mb.HasBars() {
		t.Fatal("the alpaca profile reads no bars")
	}
	px, err := r.mb.Bars(context.Background(), "AAPL", 20, time.Minute)
	if err != nil || len(px) != 20 {
		t.Fatalf("Bars: got %d prices, %v; want 20", len(px), err)
	}
	want := r.paper.Market().History("AAPL", r.clock.Now(), 20, time.Minute)
	for i := range px {
		if px[i].Cmp(want[i]) != 0 {
			t.Fatalf("bar %d: got %s, want %s", i, px[i], want[i])
		}
	}
	if _, err := r.mb.Bars(context.Background(), "AAPL", 5, 90*time.Second); err == nil {
		t.Fatal("a spacing Alpaca cannot spell was accepted")
	}
	rh := newRig(t, "rh", "robinhood", mcppaper.Options{})
	if rh.mb.HasBars() {
		t.Fatal("the robinhood profile has no bars tool")
	}
}
