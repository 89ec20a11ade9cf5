package gate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// TestDecisionCarriesWhatTheGateRead (issue 11 item 6): a decision holds the snapshot its run
// read — the valued intent, the quote with its time, the book and the verified mandate with
// its hash — so a review needs no reads of its own; the run read each once.
func TestDecisionCarriesWhatTheGateRead(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, Quantity: amt("2")}
	d := f.gate.Submit(ctx, gate.Submission{Broker: f.broker, Intent: &in, Actor: live.Agent("test", "s1"), DryRun: true})
	if d.Verdict != live.Allow || d.Read == nil {
		t.Fatalf("decision %+v, want a dry-run ALLOW with a snapshot", d)
	}
	s := d.Read
	q, _ := f.paper.Quote(ctx, "AAPL")
	if s.Quote == nil || !s.Quote.Time.Equal(q.Time) || s.ValuationPrice().Cmp(q.ValuationPrice(live.Buy)) != 0 {
		t.Errorf("snapshot quote %+v, want the quote the order was valued at (%+v)", s.Quote, q)
	}
	want := money.FromInt(2).Mul(q.ValuationPrice(live.Buy))
	if s.Intent == nil || s.Intent.NotionalUSD == nil || s.Intent.NotionalUSD.Cmp(want) != 0 {
		t.Errorf("snapshot intent %+v, want valued at %s", s.Intent, want)
	}
	hash, ok, _ := live.MandateLedger(f.gate.Mandates).LastMandateHash(ctx, "paper")
	if s.Mandate == nil || !ok || s.MandateHash != hash {
		t.Errorf("snapshot mandate %v hash %q, want the verified mandate with hash %q", s.Mandate != nil, s.MandateHash, hash)
	}
	if s.Book.Err != nil || s.Positions.Err != nil {
		t.Errorf("snapshot book unreadable: %v %v", s.Book.Err, s.Positions.Err)
	}
	if got := strings.Join(f.broker.calls, ","); got != "quote,positions" {
		t.Errorf("broker calls %s, want one quote and one positions read", got)
	}
}

// TestApprovedReCheckDrift: the gate run that sends an approved order re-checks the price
// against the one the human saw; past the tolerance it is refused stale_approval, audited
// once, and nothing is sent. A halt is still found first: the re-check is a full gate run.
func TestApprovedReCheckDrift(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		ref   string // multiple of the current price the human saw ("" for none)
		bps   int64
		halt  bool
		blind bool // no quote at the re-check
		code  live.Reason
		sends bool
	}{
		{"unchanged", "1", 0, false, false, "", true},
		{"moved 5 %", "1.05", 0, false, false, live.ReasonStaleApproval, false},
		{"moved 5 % within 600 bps", "1.05", 600, false, false, "", true},
		{"moved 0.5 % within the default 100 bps", "1.005", 0, false, false, "", true},
		{"no price shown", "", 0, false, false, "", true},
		{"halted", "1.05", 0, true, false, live.ReasonHalted, false},
		{"no quote at the re-check", "1", 0, false, true, live.ReasonStaleApproval, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "")
			q, _ := f.paper.Quote(ctx, "AAPL")
			var dr gate.Drift
			if tt.ref != "" {
				dr.Ref = q.ValuationPrice(live.Buy).Mul(money.MustParse(tt.ref))
			}
			dr.Bps = tt.bps
			if tt.halt {
				halt.Trip(f.root, live.HaltSentinel, live.GlobalScope, "t", "x", f.clock.Now())
			}
			in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
			var b live.Broker = f.broker
			if tt.blind {
				b = quoteless{f.broker}
			}
			d := f.gate.Submit(ctx, gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1"), Drift: &dr})
			if d.Forwarded != tt.sends || d.Reason != tt.code {
				t.Fatalf("got %s %s forwarded %v, want %q forwarded %v", d.Verdict, d.Reason, d.Forwarded, tt.code, tt.sends)
			}
			if recs := f.audit.Records(); len(recs) != 1 || (tt.code != "" && recs[0].Reason != tt.code) {
				t.Errorf("audit %+v, want one record with reason %q", recs, tt.code)
			}
		})
	}
}

// quoteless is a broker whose quotes cannot be read.
type quoteless struct{ live.Broker }

func (quoteless) Quote(context.Context, string) (live.Quote, error) {
	return live.Quote{}, errors.New("quote feed down")
}
