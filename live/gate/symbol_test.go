package gate_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/live"
)

// everyQuote is a broker that quotes any symbol (as a broker that resolves look-alike symbols
// to the real one would): the gate cannot lean on a missing quote to refuse an order.
type everyQuote struct{ *quoteBroker }

func (b everyQuote) Quote(context.Context, string) (live.Quote, error) {
	return quote("20.00", "20.01", "20.00"), nil
}

// TestLookAlikeSymbolsDenied is issue 27 item 4 at the gate: with GME excluded and a broker
// that quotes anything, an order for a symbol that looks like GME (a trailing dot, a zero-width
// space, full-width letters) or that carries a terminal escape is denied as a malformed
// symbol (kind instrument, limit order_intent) and never reaches the broker; GME itself is
// denied by the exclude list and a well-formed symbol goes through.
func TestLookAlikeSymbolsDenied(t *testing.T) {
	tests := []struct {
		symbol  string
		verdict live.Verdict
		limit   string
		detail  string
	}{
		{"GME.", live.Deny, live.LimitOrderIntent, `symbol 'GME.' is malformed: it ends with "."`},
		{"G\u200bME", live.Deny, live.LimitOrderIntent, "U+200B at byte 1"},
		{"ＧＭＥ", live.Deny, live.LimitOrderIntent, "U+FF27 at byte 0"},
		{"gme\u200d", live.Deny, live.LimitOrderIntent, "U+200D at byte 3"},
		{"\x1b]0;OWNED\a\x1b[2J\x1b[1A\x1b[2K", live.Deny, live.LimitOrderIntent, "U+001B at byte 0"},
		{"GME", live.Deny, live.LimitExcludeSymbols, "GME"},
		{"BRK.B", live.Allow, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.symbol, func(t *testing.T) {
			b := newQuoteBroker()
			g := instrumentGate(t, b, `"equity", "etf"`, `"us_equity", "us_etf"`)
			d := placeArgs(t, g, everyQuote{b}, `{"symbol":"`+strings.ReplaceAll(strings.ReplaceAll(tt.symbol, "\x1b", `\u001b`), "\a", `\u0007`)+`","side":"buy","notional":"100"}`)
			if d.Verdict != tt.verdict {
				t.Fatalf("verdict = %s (%s), want %s", d.Verdict, d.Message(), tt.verdict)
			}
			if tt.limit != "" && (d.Breach == nil || d.Breach.Limit != tt.limit) {
				t.Errorf("breach = %+v, want limit %s", d.Breach, tt.limit)
			}
			if tt.limit == live.LimitOrderIntent && d.Breach.Kind != live.KindInstrument {
				t.Errorf("kind = %s, want instrument", d.Breach.Kind)
			}
			if !strings.Contains(d.Message(), tt.detail) {
				t.Errorf("message = %q, want it to contain %q", d.Message(), tt.detail)
			}
			if forwarded := len(b.sent) == 1; forwarded != (tt.verdict == live.Allow) {
				t.Errorf("forwarded %d orders, want %v", len(b.sent), tt.verdict == live.Allow)
			}
		})
	}
}
