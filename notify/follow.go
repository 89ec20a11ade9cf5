package notify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
)

// ReasonLossLimit starts the reason of a halt a loss limit tripped (issue 29 item 1).
const ReasonLossLimit = "loss_limit"

// KindPluginDisabled is the audit kind the WASM plugin agent writes when it is disabled
// (wasmplugin.KindDisabled; the session's test pins the two together).
const KindPluginDisabled = "plugin_disabled"

// Follower turns what happens in a session into messages: engine events (a review waiting, a
// halt) and audit records (a failed flatten, a disabled plugin). It only posts: it never
// waits for a sink.
type Follower struct {
	N     *Notifier
	Label string // the session's broker as titles show it, e.g. "paper" or "alpaca [LIVE]"
	// HaltWhy says why trading is halted now: a line for people and the halt's reason as
	// written (a loss limit's starts with ReasonLossLimit).
	HaltWhy func() (line, reason string)

	mu     sync.Mutex
	halted map[string]bool // per broker, the last state seen
}

// Follow handles events until ch closes or ctx ends.
func (f *Follower) Follow(ctx context.Context, ch <-chan engine.Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-ch:
			if !ok {
				return
			}
			f.Event(e)
		}
	}
}

// Event posts the message an engine event calls for, if any.
func (f *Follower) Event(e engine.Event) {
	switch {
	case e.Kind == engine.EvReviewCreated && e.Review != nil:
		f.N.Post(f.review(e.Review, e.Time))
	case e.Kind == engine.EvHalt && e.Halt != nil:
		if f.trip(e.Halt.Broker, e.Halt.Halted) {
			f.N.Post(f.halt(e.Halt.Broker, e.Time))
		}
	case e.Kind == engine.EvLossLimit && e.Loss != nil && e.Loss.Tripped:
		// The gate's own word that a loss limit tripped the HALT, which the watcher's EvHalt
		// says too, before or after it: whichever comes first is the one message.
		if f.trip(e.Loss.Broker, true) {
			f.N.Post(f.lossLimit(e.Loss.Broker, e.Loss.Message(), e.Time))
		}
	}
}

// Seen sets where a broker starts (halted or not): a later change into HALTED is news even
// when the first state the bus carries is already halted (the watcher does not repeat a state
// it evaluated before anyone followed it).
func (f *Follower) Seen(broker string, halted bool) { f.trip(broker, halted) }

// trip records a broker's state and reports a change into HALTED. The first state seen is
// where the session started (a live session starts halted): it is not news.
func (f *Follower) trip(broker string, halted bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.halted == nil {
		f.halted = map[string]bool{}
	}
	was, seen := f.halted[broker]
	f.halted[broker] = halted
	return seen && halted && !was
}

func (f *Follower) title(what string) string { return "cockpit " + f.Label + ": " + what }

// review is the message for a review waiting: what, why, until when, and how to answer.
func (f *Follower) review(it *live.ReviewItem, at time.Time) Message {
	if at.IsZero() {
		at = it.Created
	}
	order := it.OrderText(false, "")
	if order == "" {
		order = "an order"
	}
	why := it.Detail
	if it.Why == "supervised" || why == "" {
		why = "every order waits for a human (" + it.Why + ")"
	}
	left := it.Deadline.Sub(at).Round(time.Second)
	deadline := it.Deadline.UTC().Format("15:04:05 UTC")
	text := fmt.Sprintf("%s waits for review %s: %s.\nDeadline %s (in %s); unanswered by then it is denied.\n"+
		"Approve: cockpit approvals approve %s\nDeny:    cockpit approvals deny %s --reason …\n"+
		"(or on the screen or over SSH; this message cannot approve)", order, it.ID, why, deadline, left, it.ID, it.ID)
	return Message{Event: EvReview, Title: f.title("review " + it.ID + " waits until " + deadline), Text: text,
		Priority: PriorityHigh, Ref: it.ID, Time: at, Deadline: it.Deadline}
}

// halt is the message for a broker that just halted; a loss limit's halt says so.
func (f *Follower) halt(broker string, at time.Time) Message {
	line, reason := "HALTED (no reason could be read)", ""
	if f.HaltWhy != nil {
		line, reason = f.HaltWhy()
	}
	m := Message{Event: EvHalt, Priority: PriorityUrgent, Ref: broker, Time: at, Title: f.title("HALTED"),
		Text: line + "\nThe agent is paused and no agent order passes until an operator resumes (cockpit resume --reason …)."}
	if strings.HasPrefix(strings.TrimSpace(reason), ReasonLossLimit) {
		return f.lossLimit(broker, line, at)
	}
	return m
}

// lossLimit is the message for a broker a loss limit halted: line says which limit and by how
// much (the HALT's line, or the gate's reading).
func (f *Follower) lossLimit(broker, line string, at time.Time) Message {
	return Message{Event: EvLossLimit, Priority: PriorityUrgent, Ref: broker, Time: at, Title: f.title("LOSS LIMIT crossed: trading HALTED"),
		Text: "A loss limit tripped the halt: " + line +
			"\nNo order that increases exposure passes until an operator resumes (cockpit resume --reason …)."}
}

// AuditHalt is the message for the gate's in-memory halt (audit_unavailable) when no HALT file
// could be written to say it (the watcher then sees no change).
func (f *Follower) AuditHalt(h gate.AuditHalt) {
	f.N.Post(Message{Event: EvHalt, Priority: PriorityUrgent, Title: f.title("HALTED " + string(h.Reason)), Time: h.At,
		Text: h.Message() + "\nThe HALT file could not be written; the halt holds in memory until cockpit restarts. Check the disk and the audit store."})
}

// Record implements live.AuditSink: a failed flatten and a disabled plugin become messages.
// It posts and returns: the gate's audit write never waits on a sink.
func (f *Follower) Record(_ context.Context, r live.AuditRecord) error {
	switch {
	case r.Kind == live.KindFlatten && r.Outcome != live.OutcomeAccepted:
		f.N.Post(Message{Event: EvFlattenFailed, Priority: PriorityUrgent, Ref: r.Broker, Time: r.Time, Title: f.title("flatten FAILED"),
			Text: "Flatten of " + r.Broker + " did not end flat and verified: " + r.Intent + "\nCheck the broker; positions or orders may be left."})
	case r.Kind == KindPluginDisabled:
		f.N.Post(Message{Event: EvPluginDisabled, Priority: PriorityHigh, Ref: r.Broker, Time: r.Time, Title: f.title("plugin disabled"),
			Text: r.Intent + "\nThe plugin agent gets no more ticks this session."})
	}
	return nil
}
