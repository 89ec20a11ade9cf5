package gate_test

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// fixedQuote answers every quote with bid 189, ask 190, last 189.5.
type fixedQuote struct{ *spy }

func (f fixedQuote) Quote(_ context.Context, sym string) (live.Quote, error) {
	return live.Quote{Symbol: sym, Bid: money.MustParse("189"), Ask: money.MustParse("190"), Last: money.MustParse("189.5")}, nil
}

// TestAuditNamesTheNotional (issue 28 §4, one order shows one notional): the Orders pane shows
// a limit order at quantity × limit, the audit the notional the gate checked (at the ask for a
// buy below it). The record now says which one its notional is and carries both.
func TestAuditNamesTheNotional(t *testing.T) {
	cases := []struct {
		name                     string
		qty, limit, notional     string
		wantNotional, basis      string
		wantAtQuote, wantAtLimit string
		typ                      live.OrderType // a stop (its prices below), else market or limit
		stop, trail              string
	}{
		{"limit buy below the ask", "10", "180", "", "1900", "quote", "1900", "1800", "", "", ""},
		{"limit buy above the ask", "10", "195", "", "1950", "limit", "1900", "1950", "", "", ""},
		{"market buy", "10", "", "", "1900", "quote", "1900", "", "", "", ""},
		{"notional larger than the quantity's value", "10", "", "2500", "2500", "explicit", "1900", "", "", "", ""},
		{"notional order", "", "", "500", "500", "explicit", "", "", "", "", ""},
		{"buy stop above the ask", "10", "", "", "2000", "trigger", "1900", "", live.Stop, "200", ""},
		{"buy trailing stop", "10", "", "", "1950", "trigger", "1900", "", live.TrailingStop, "", "5"},
		{"buy stop-limit, its limit above its stop", "10", "205", "", "2050", "limit", "1900", "2050", live.StopLimit, "200", ""},
		{"buy stop below the ask", "10", "", "", "1900", "quote", "1900", "", live.Stop, "185", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "")
			in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity}
			req := live.OrderRequest{Type: live.Market}
			if c.qty != "" {
				in.Quantity = amt(c.qty)
			}
			if c.notional != "" {
				in.NotionalUSD = amt(c.notional)
			}
			if c.limit != "" {
				in.LimitPrice, req.Type, req.LimitPrice = amt(c.limit), live.Limit, amt(c.limit)
			}
			if c.typ != "" {
				req.Type = c.typ
				if c.stop != "" {
					req.StopPrice = amt(c.stop)
				}
				if c.trail != "" {
					req.TrailAmount = amt(c.trail)
				}
			}
			d := f.gate.Submit(context.Background(), gate.Submission{Broker: fixedQuote{f.broker}, Intent: &in, Order: req, Actor: live.Agent("test", "s1")})
			if !d.Forwarded {
				t.Fatalf("%s %s: not forwarded", d.Verdict, d.Reason)
			}
			rec := f.lastAudit(t)
			if rec.Notional == nil || rec.Notional.String() != c.wantNotional {
				t.Errorf("audit notional %v, want %s", rec.Notional, c.wantNotional)
			}
			detail, _ := rec.Detail.(*jsonv.Object)
			str := func(k string) string {
				v, ok := detail.Get(k)
				if !ok {
					return ""
				}
				return string(jsonv.MustMarshal(v, jsonv.Compact))
			}
			if got := str("notional_basis"); got != `"`+c.basis+`"` {
				t.Errorf("notional_basis %s, want %q", got, c.basis)
			}
			if got := str("notional_at_quote"); got != c.wantAtQuote {
				t.Errorf("notional_at_quote %q, want %q", got, c.wantAtQuote)
			}
			if got := str("notional_at_limit"); got != c.wantAtLimit {
				t.Errorf("notional_at_limit %q, want %q", got, c.wantAtLimit)
			}
		})
	}
}
