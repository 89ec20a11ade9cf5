package gate_test

import (
	"context"
	"slices"
	"testing"

	"cockpit/live"
	"cockpit/live/halt"
)

func TestBracketChildrenCountForTheDay(t *testing.T) {
	b := newQuoteBroker()
	b.children = 2 // a bracket: the broker creates a take-profit and a stop-loss with it
	g := instrumentGate(t, b, `"equity"`, `"us_equity"`, `"max_trades_per_day": 20`, `"max_trades_per_day": 5`)
	first := placeArgs(t, g, b, `{"symbol":"AAPL","side":"buy","quantity":1}`)
	if first.Verdict != live.Allow || first.Count != 3 {
		t.Fatalf("first bracket: %s, count %d; want ALLOW, count 3 (the parent and its two legs)", first.Verdict, first.Count)
	}
	second := placeArgs(t, g, b, `{"symbol":"AAPL","side":"buy","quantity":1}`)
	if second.Verdict != live.Allow || second.Count != 6 {
		t.Fatalf("second bracket: %s, count %d; want ALLOW (3+1 ≤ 5), count 6", second.Verdict, second.Count)
	}
	third := placeArgs(t, g, b, `{"symbol":"AAPL","side":"buy","quantity":1}`)
	if third.Verdict != live.PauseForReauth || third.Reason != live.LimitTradesPerDay {
		t.Fatalf("third order: %s %s, want PAUSE max_trades_per_day", third.Verdict, third.Reason)
	}
}

func TestReplaceThroughGate(t *testing.T) {
	old := live.Order{ID: "o1", Symbol: "AAPL", Side: live.Buy, Type: live.Limit, Quantity: amt("20"), LimitPrice: amt("187"), Status: live.StatusAccepted}
	tests := []struct {
		name    string
		rep     live.Replace
		halted  bool
		verdict live.Verdict
		reason  string
		step    string // a step the decision must list
	}{
		// 30 × 187.21 = 5616.30 > the 5,000 order cap: checked as a new order.
		{"size up past the order cap", live.Replace{OrderID: "o1", Quantity: amt("30")}, false, live.PauseForReauth, live.LimitOrderNotional, "mandate_limits"},
		// 25 × 187.21 = 4680.25; with the old 20 × 187 = 3740 still counted the book would
		// be 8420.25 > the 6,000 exposure cap: the old order is swapped out.
		{"size up inside the caps, old order swapped out", live.Replace{OrderID: "o1", Quantity: amt("25")}, false, live.Allow, "", "mandate_limits"},
		{"price up is checked too", live.Replace{OrderID: "o1", LimitPrice: amt("400")}, false, live.PauseForReauth, live.LimitOrderNotional, "mandate_limits"},
		{"size down goes through", live.Replace{OrderID: "o1", Quantity: amt("10")}, false, live.Allow, "", "replace_lowers"},
		{"size down while halted", live.Replace{OrderID: "o1", Quantity: amt("10")}, true, live.Deny, string(live.ReasonHalted), ""},
		{"nothing to change", live.Replace{OrderID: "o1"}, false, live.Deny, live.LimitOrderIntent, ""},
		{"an order that is not open", live.Replace{OrderID: "o9", Quantity: amt("1")}, false, live.Deny, live.LimitOrderIntent, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newQuoteBroker()
			b.open = []live.Order{old}
			g := instrumentGate(t, b, `"equity"`, `"us_equity"`, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 6000`)
			if tt.halted {
				halt.Trip(g.Root, live.HaltSentinel, live.GlobalScope, "t", "stop", g.Now())
			}
			d := g.Replace(context.Background(), gateSubmission(b), tt.rep, "")
			if d.Verdict != tt.verdict || (tt.reason != "" && string(d.Reason) != tt.reason) {
				t.Fatalf("got %s %s (%s), want %s %s", d.Verdict, d.Reason, d.Message(), tt.verdict, tt.reason)
			}
			if tt.step != "" && !slices.Contains(d.Checked, tt.step) {
				t.Errorf("checked %v, want %s among them", d.Checked, tt.step)
			}
			if tt.verdict == live.Allow {
				if len(b.sent) != 1 || b.sent[0].Replaces != "o1" {
					t.Fatalf("sent %+v, want one request replacing o1", b.sent)
				}
			} else if len(b.sent) != 0 {
				t.Errorf("sent %d requests, want none", len(b.sent))
			}
		})
	}
}

// TestLoweringReplaceRespectsTheDayCap: a replace that only lowers still adds an order to the
// day, so with the day's cap spent it goes to review like any order (it was sent, and counted
// past the cap, before).
func TestLoweringReplaceRespectsTheDayCap(t *testing.T) {
	b := newQuoteBroker()
	b.open = []live.Order{{ID: "o1", Symbol: "AAPL", Side: live.Buy, Type: live.Limit, Quantity: amt("20"), LimitPrice: amt("187"), Status: live.StatusAccepted}}
	g := instrumentGate(t, b, `"equity"`, `"us_equity"`, `"max_trades_per_day": 20`, `"max_trades_per_day": 1`)
	if first := placeArgs(t, g, b, `{"symbol":"AAPL","side":"buy","quantity":1}`); first.Verdict != live.Allow {
		t.Fatalf("first order: %s, want ALLOW", first.Verdict)
	}
	sent := len(b.sent)
	d := g.Replace(context.Background(), gateSubmission(b), live.Replace{OrderID: "o1", Quantity: amt("10")}, "")
	if d.Verdict != live.PauseForReauth || d.Reason != live.LimitTradesPerDay {
		t.Fatalf("lowering replace at the cap: got %s %s (%s), want PAUSE max_trades_per_day", d.Verdict, d.Reason, d.Message())
	}
	if len(b.sent) != sent {
		t.Fatalf("sent %d requests after the cap, want none", len(b.sent)-sent)
	}
}
