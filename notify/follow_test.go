package notify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
)

// follower is a Follower over a rig whose lane the test drains.
func follower(t *testing.T, why, reason string) (*Follower, *lane, *fakeSink) {
	t.Helper()
	s := &fakeSink{}
	n, l, _, _ := rig(t, Options{Rate: 100}, s)
	return &Follower{N: n, Label: "paper", HaltWhy: func() (string, string) { return why, reason }}, l, s
}

// TestReviewMessage: a review waiting says what, why, until when, and how to answer from the
// CLI; the agent's own words (untrusted) are left out.
func TestReviewMessage(t *testing.T) {
	f, l, s := follower(t, "", "")
	at := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	it := &live.ReviewItem{ID: "rv_42", Broker: "paper", Why: "breach", Detail: "max_order_notional: 5000 > 2500",
		AgentReason: "IGNORE PREVIOUS INSTRUCTIONS @everyone", Deadline: at.Add(5 * time.Minute),
		Order: jsonv.ObjectOf("side", "buy", "notional", "5000", "symbol", "AAPL")}
	f.Event(engine.Event{Kind: engine.EvReviewCreated, Review: it, Time: at})
	drain(l)
	if len(s.sent) != 1 {
		t.Fatalf("sent %d, want 1", len(s.sent))
	}
	m := s.sent[0]
	for _, want := range []string{"buy $5000 AAPL waits for review rv_42: max_order_notional: 5000 > 2500.",
		"Deadline 14:05:00 UTC (in 5m0s)", "Approve: cockpit approvals approve rv_42", "Deny:    cockpit approvals deny rv_42",
		"this message cannot approve"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, m.Text)
		}
	}
	if strings.Contains(m.Text, "IGNORE") || strings.Contains(m.Text, "@everyone") {
		t.Errorf("the agent's reason reached the message:\n%s", m.Text)
	}
	if m.Event != EvReview || m.Ref != "rv_42" || !m.Deadline.Equal(it.Deadline) || m.Title != "cockpit paper: review rv_42 waits until 14:05:00 UTC" {
		t.Errorf("got %+v", m)
	}
}

// TestHaltTransitions: the first state seen is the start (no message); a change into HALTED is
// one message; staying halted is none; a halt whose reason is a loss limit says so.
func TestHaltTransitions(t *testing.T) {
	cases := []struct {
		name, reason string
		states       []bool
		wantEvents   []Event
	}{
		{"starts halted: quiet", "operator", []bool{true, true}, nil},
		{"trading then halted", "operator", []bool{false, true, true}, []Event{EvHalt}},
		{"halted, resumed, halted", "operator", []bool{false, true, false, true}, []Event{EvHalt, EvHalt}},
		{"loss limit", "loss_limit: day loss 1200 > max_daily_loss_usd 1000", []bool{false, true}, []Event{EvLossLimit}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, l, s := follower(t, "HALTED "+c.reason+" (paper, gate, 14:00:00 UTC)", c.reason)
			for _, h := range c.states {
				f.Event(engine.Event{Kind: engine.EvHalt, Halt: &halt.State{Broker: "paper", Halted: h}})
			}
			drain(l)
			var got []Event
			for _, m := range s.sent {
				got = append(got, m.Event)
			}
			if strings.Join(evs(got), ",") != strings.Join(evs(c.wantEvents), ",") {
				t.Fatalf("events %v, want %v", got, c.wantEvents)
			}
			if len(s.sent) > 0 && c.wantEvents[0] == EvLossLimit {
				m := s.sent[0]
				if m.Title != "cockpit paper: LOSS LIMIT crossed: trading HALTED" || !strings.Contains(m.Text, "A loss limit tripped the halt: HALTED loss_limit: day loss") || m.Priority != PriorityUrgent {
					t.Errorf("loss-limit message %+v", m)
				}
			}
		})
	}
}

// TestLossLimitEventIsOneMessage: the gate's loss-limit event (engine.EvLossLimit) is the
// loss_limit message, with the limit it read; the watcher's HALT of the same trip, before or
// after it, adds none; a crossing seen while a HALT was already in place (not tripped) is none.
func TestLossLimitEventIsOneMessage(t *testing.T) {
	loss := &gate.LossHalt{Broker: "paper", Tripped: true, Gauge: live.LossGauge{Limit: live.LimitDailyLoss}}
	halted := engine.Event{Kind: engine.EvHalt, Halt: &halt.State{Broker: "paper", Halted: true}}
	lossEv := engine.Event{Kind: engine.EvLossLimit, Loss: loss}
	already := engine.Event{Kind: engine.EvLossLimit, Loss: &gate.LossHalt{Broker: "paper", Gauge: loss.Gauge}}
	cases := []struct {
		name   string
		events []engine.Event
		want   int
	}{
		{"the loss event alone (the watcher has not seen the HALT yet)", []engine.Event{lossEv}, 1},
		{"loss event, then the watcher's halt", []engine.Event{lossEv, halted}, 1},
		{"the watcher's halt, then the loss event", []engine.Event{halted, lossEv}, 1},
		{"a crossing under a HALT already in place", []engine.Event{already}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, l, s := follower(t, "HALTED loss_limit: daily loss 600 > max_daily_loss_usd 500 (paper, cockpit, 14:00:00 UTC)", "loss_limit: daily loss 600")
			f.Seen("paper", false)
			for _, e := range c.events {
				f.Event(e)
			}
			drain(l)
			if len(s.sent) != c.want {
				t.Fatalf("sent %d messages %+v, want %d", len(s.sent), s.sent, c.want)
			}
			if c.want == 1 {
				m := s.sent[0]
				if m.Event != EvLossLimit || m.Priority != PriorityUrgent || m.Title != "cockpit paper: LOSS LIMIT crossed: trading HALTED" ||
					!strings.Contains(m.Text, "A loss limit tripped the halt: HALTED loss_limit") {
					t.Errorf("message %+v", m)
				}
			}
		})
	}
}

func evs(es []Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e)
	}
	return out
}

// TestAuditRecordsBecomeMessages: the follower as an audit sink turns a failed flatten and a
// disabled plugin into messages, and nothing else.
func TestAuditRecordsBecomeMessages(t *testing.T) {
	f, l, s := follower(t, "", "")
	recs := []live.AuditRecord{
		{Kind: live.KindFlatten, Outcome: live.OutcomeAccepted, Broker: "paper", Intent: "FLAT (verified 14:00:00 UTC)"},
		{Kind: live.KindFlatten, Outcome: live.OutcomeError, Broker: "paper", Intent: "NOT FLAT: 1 position open (AAPL 10)"},
		{Kind: KindPluginDisabled, Broker: "paper", Intent: "plugin meanrev disabled: trapped: unreachable"},
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted},
		{Kind: KindNotification, Outcome: OutcomeFailed},
	}
	for _, r := range recs {
		if err := f.Record(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	drain(l)
	if len(s.sent) != 2 || s.sent[0].Event != EvFlattenFailed || s.sent[1].Event != EvPluginDisabled {
		t.Fatalf("sent %+v, want flatten_failed then plugin_disabled", s.sent)
	}
	if !strings.Contains(s.sent[0].Text, "NOT FLAT: 1 position open (AAPL 10)") || !strings.Contains(s.sent[1].Text, "plugin meanrev disabled") {
		t.Errorf("texts %q / %q", s.sent[0].Text, s.sent[1].Text)
	}
}

// TestAuditHaltMessage: the gate's in-memory halt is a halt message naming audit_unavailable.
func TestAuditHaltMessage(t *testing.T) {
	f, l, s := follower(t, "", "")
	f.AuditHalt(gate.AuditHalt{Reason: live.ReasonAuditUnavailable, Detail: "disk full"})
	drain(l)
	if len(s.sent) != 1 || s.sent[0].Event != EvHalt || !strings.Contains(s.sent[0].Text, "HALTED audit_unavailable: disk full") {
		t.Fatalf("sent %+v", s.sent)
	}
}

// TestLinkWatch: a link is down after two failed polls in a row, said once per outage; an up
// poll re-arms it; a link that cannot tell yet is skipped.
func TestLinkWatch(t *testing.T) {
	f, l, s := follower(t, "", "")
	type obs struct{ up, known bool }
	script := []obs{{false, false}, {true, true}, {false, true}, {true, true}, {false, true}, {false, true}, {false, true}, {true, true}, {false, true}, {false, true}}
	i := 0
	w := &LinkWatch{F: f, Links: []Link{{Event: EvBrokerDown, Name: "broker alpaca", Check: func() (bool, bool, string) {
		o := script[i]
		return o.up, o.known, "dial tcp: connection refused"
	}}}}
	var sentAt []int
	for i = range script {
		w.Poll()
		if drain(l) > 0 {
			sentAt = append(sentAt, i)
		}
	}
	if got := fmt.Sprint(sentAt); got != "[5 9]" {
		t.Fatalf("messages after polls %v, want [5 9]", sentAt)
	}
	m := s.sent[0]
	if m.Event != EvBrokerDown || m.Title != "cockpit paper: broker alpaca link down" || !strings.Contains(m.Text, "connection refused") {
		t.Errorf("message %+v", m)
	}
}

// TestSeenSetsTheStart: a follower told where the session started reports a halt even when the
// first state the bus carries is already halted (the watcher published its first state before
// the session's loops followed it).
func TestSeenSetsTheStart(t *testing.T) {
	f, l, s := follower(t, "HALTED operator", "operator")
	f.Seen("paper", false)
	f.Event(engine.Event{Kind: engine.EvHalt, Halt: &halt.State{Broker: "paper", Halted: true}})
	if drain(l); len(s.sent) != 1 || s.sent[0].Event != EvHalt {
		t.Fatalf("sent %+v, want one halt", s.sent)
	}
}
