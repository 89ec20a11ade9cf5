package gate_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
)

// brokenAudit refuses every record.
type brokenAudit struct{ records int }

func (b *brokenAudit) Record(context.Context, live.AuditRecord) error {
	b.records++
	return errors.New("disk I/O error")
}

// probedAudit is a brokenAudit that can be asked before a forward.
type probedAudit struct{ brokenAudit }

func (p *probedAudit) ProbeAudit(context.Context) error {
	return errors.New("events: constraint failed")
}

// brokenJournal refuses the write-ahead row.
type brokenJournal struct{ live.MemoryJournal }

func (*brokenJournal) Begin(context.Context, live.JournalEntry) error {
	return errors.New("database is locked")
}

// TestNoRecordNoTrade is issue 10 item 3 (DV15): an audit sink or a journal that cannot be
// written stops the order when the gate can know beforehand, flags it when it cannot, trips
// HALTED audit_unavailable (latch and sentinel), and no later order reaches the broker.
func TestNoRecordNoTrade(t *testing.T) {
	cases := []struct {
		name      string
		setup     func(f *fixture)
		firstSent bool // the first order goes (and is flagged) because nothing could tell before
	}{
		{"probe refuses", func(f *fixture) { f.gate.Audit = &probedAudit{} }, false},
		{"journal refuses", func(f *fixture) { f.gate.Journal = &brokenJournal{} }, false},
		{"record fails after the forward", func(f *fixture) { f.gate.Audit = &brokenAudit{} }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "")
			c.setup(f)
			first := f.buy("AAPL", "100", "")
			if first.Forwarded != c.firstSent {
				t.Fatalf("first order forwarded = %v, want %v (%+v)", first.Forwarded, c.firstSent, first)
			}
			if c.firstSent && first.AuditErr == nil {
				t.Fatal("the forwarded order whose record failed is not flagged")
			}
			if h, _ := f.gate.Latched(); c.firstSent && !strings.Contains(h.Detail, first.ClientOrderID+" was SENT") {
				t.Fatalf("the latch does not name the sent order %s: %q", first.ClientOrderID, h.Detail)
			}
			if !c.firstSent && first.Verdict != live.Deny {
				t.Fatalf("first order: got %s, want DENY", first.Verdict)
			}
			for i := 0; i < 9; i++ {
				f.clock.Advance(time.Minute)
				if d := f.buy("MSFT", "100", ""); d.Forwarded || d.Verdict != live.Deny {
					t.Fatalf("order %d after the failure: forwarded %v verdict %s", i+2, d.Forwarded, d.Verdict)
				}
			}
			want := 0
			if c.firstSent {
				want = 1
			}
			if got := f.broker.placed; got != want {
				t.Fatalf("the broker got %d orders, want %d", got, want)
			}
			h, ok := f.gate.Latched()
			if !ok || h.Reason != live.ReasonAuditUnavailable {
				t.Fatalf("latch = %+v %v, want %s", h, ok, live.ReasonAuditUnavailable)
			}
			a, err := halt.ReadSentinel(f.root, live.HaltSentinel, live.GlobalScope)
			if err != nil || a == nil || !strings.HasPrefix(a.Reason, string(live.ReasonAuditUnavailable)) {
				t.Fatalf("global HALT = %+v %v, want one with reason %s", a, err, live.ReasonAuditUnavailable)
			}
		})
	}
}

// TestLatchHoldsWithoutSentinel: the latch is in memory, so removing the HALT file (or a disk
// that cannot take it) does not let an order through.
func TestLatchHoldsWithoutSentinel(t *testing.T) {
	f := newFixture(t, "")
	var told []gate.AuditHalt
	f.gate.OnHalt = func(h gate.AuditHalt) { told = append(told, h) }
	f.gate.TripAuditHalt(errors.New("engine tool-call record failed"))
	f.gate.TripAuditHalt(errors.New("second"))
	if _, err := halt.Clear(f.root, live.HaltSentinel, live.GlobalScope); err != nil {
		t.Fatal(err)
	}
	d := f.buy("AAPL", "100", "")
	if d.Verdict != live.Deny || d.Reason != live.ReasonAuditUnavailable || f.broker.placed != 0 {
		t.Fatalf("got %s %s (placed %d), want DENY %s and nothing sent", d.Verdict, d.Reason, f.broker.placed, live.ReasonAuditUnavailable)
	}
	if len(told) != 1 || !strings.Contains(told[0].Detail, "engine tool-call") {
		t.Fatalf("OnHalt calls %+v, want one with the first cause", told)
	}
}
