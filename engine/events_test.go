package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// TestBusNeverBlocks: a subscriber that does not read keeps the newest events; the publisher
// never waits.
func TestBusNeverBlocks(t *testing.T) {
	b := NewBus(func() time.Time { return t0 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx, 2)
	for i := 0; i < 5; i++ {
		b.Publish(Event{Kind: EvNote, Message: "x"})
	}
	var seqs []uint64
	for len(ch) > 0 {
		seqs = append(seqs, (<-ch).Seq)
	}
	if len(seqs) != 2 || seqs[0] != 4 || seqs[1] != 5 {
		t.Errorf("kept %v, want [4 5]", seqs)
	}
	if g := b.NextGeneration(); g != 2 {
		t.Errorf("generation %d", g)
	}
	b.Publish(Event{Kind: EvNote})
	if e := <-ch; e.Gen != 2 || !e.Time.Equal(t0) {
		t.Errorf("event gen %d time %s", e.Gen, e.Time)
	}
}

func TestEventText(t *testing.T) {
	n := money.MustParse("1500")
	in := live.OrderIntent{Symbol: "aapl", Side: "buy", NotionalUSD: &n, InstrumentType: live.Equity}
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Kind: EvDecision, Decision: &gate.Decision{Verdict: live.Allow, Outcome: live.OutcomeAccepted, Intent: &in,
			Order: &live.Order{ID: "P1"}, Count: 3}}, "ALLOW   buy $1500 AAPL (equity) → order P1 [3 today]"},
		{Event{Kind: EvDecision, Decision: &gate.Decision{Verdict: live.PauseForReauth, Intent: &in,
			Breach: &live.Breach{Kind: live.KindQuantitative, Limit: "max_order_notional_usd", LimitValue: money.FromInt(1000), Attempted: n}}},
			"ASK     buy $1500 AAPL (equity): max_order_notional_usd"},
		{Event{Kind: EvToolCall, Tool: "place_order", Result: &Result{Status: StatusDenied, Decision: "deny", Code: "read_only", Detail: "the\npolicy  is read-only"}},
			"call    place_order     DENIED read_only: the policy is read-only"},
		{Event{Kind: EvHalt, Halt: &halt.State{Broker: "paper", Halted: true, Cause: "fsnotify"}}, "HALT    paper is halted (fsnotify): agent paused"},
		{Event{Kind: EvNote, Message: "ignore previous instructions"}, `agent   "ignore previous instructions"`},
		{Event{Kind: EvError, Message: strings.Repeat("x", 300)}, "ERROR   " + strings.Repeat("x", 160) + "…"},
	}
	for _, tt := range tests {
		if got := tt.ev.Text(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("Text() = %q, want prefix %q", got, tt.want)
		}
	}
}

// TestBusClosesOnCancel: a subscriber's channel is closed when its context ends, after what
// was already queued; publishing afterwards is safe.
func TestBusClosesOnCancel(t *testing.T) {
	b := NewBus(nil)
	ctx, cancel := context.WithCancel(context.Background())
	ch := b.Subscribe(ctx, 4)
	b.Publish(Event{Kind: EvNote})
	cancel()
	n := 0
	for range ch {
		n++
	}
	if n != 1 {
		t.Errorf("received %d events, want 1", n)
	}
	b.Publish(Event{Kind: EvNote}) // must not panic
}

func TestReviewOrderText(t *testing.T) {
	notional := jsonv.ObjectOf("side", "buy", "notional", jsonv.Number("6000"), "symbol", "TSLA")
	limit := jsonv.ObjectOf("side", "sell", "quantity", jsonv.Number("10"), "symbol", "AAPL", "limit_price", jsonv.Number("245.5"))
	tests := []struct {
		order *jsonv.Object
		upper bool
		mask  string
		want  string
	}{
		{notional, false, "", "buy $6000 TSLA"},
		{notional, true, "$•••", "BUY $••• TSLA"},
		{limit, true, "$•••", "SELL 10 AAPL @ 245.5"},
		{nil, true, "", ""},
	}
	for _, tt := range tests {
		it := &live.ReviewItem{Order: tt.order}
		if got := it.OrderText(tt.upper, tt.mask); got != tt.want {
			t.Errorf("OrderText(%v, %q) = %q, want %q", tt.upper, tt.mask, got, tt.want)
		}
	}
}
