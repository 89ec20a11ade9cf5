package engine

import (
	"context"
	"sync"
	"time"

	"cockpit/internal/fanout"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// EventKind names an engine event.
type EventKind string

// Event kinds.
const (
	EvToolCall       EventKind = "tool_call"       // a tool call finished (Result set)
	EvDecision       EventKind = "decision"        // the gate decided an order (Decision set)
	EvOrderUpdate    EventKind = "order_update"    // the broker reported a fill, cancel or rejection
	EvReviewCreated  EventKind = "review_created"  // a breach or supervised order waits for a human
	EvReviewResolved EventKind = "review_resolved" // approved, denied, timed out or voided
	EvReviewOutcome  EventKind = "review_outcome"  // what an approved order did when the gate ran it again
	EvHalt           EventKind = "halt"            // the trading state changed
	EvFlatten        EventKind = "flatten"         // one step of the halt action
	EvFinding        EventKind = "finding"         // the injection scanner flagged external content
	EvTurnStarted    EventKind = "turn_started"
	EvTurnEnded      EventKind = "turn_ended"
	EvError          EventKind = "error"
	EvLLM            EventKind = "llm"        // an LLM request was made (usage and cost)
	EvNote           EventKind = "note"       // the agent said something (untrusted text)
	EvLossLimit      EventKind = "loss_limit" // a loss limit was crossed and the broker halted (Loss set)
)

// Event is one thing that happened, for the screen and the headless log. Gen identifies the
// engine run that produced it: a consumer drops events from an older generation.
type Event struct {
	Gen      uint64
	Seq      uint64
	Time     time.Time
	Kind     EventKind
	Agent    string
	Turn     int
	Tool     string
	Result   *Result
	Decision *gate.Decision
	Order    *live.OrderUpdate
	Review   *live.ReviewItem
	Halt     *halt.State
	Flatten  *gate.FlattenProgress
	Report   *gate.FlattenReport
	Loss     *gate.LossHalt // EvLossLimit: the crossed limit and the reading
	Finding  *Finding
	Cost     money.Amount
	Message  string
}

// Bus fans events out to subscribers without ever blocking the publisher: a subscriber that
// falls behind loses its oldest queued events.
type Bus struct {
	mu   sync.Mutex
	gen  uint64
	seq  uint64
	subs []chan Event
	now  func() time.Time
}

// NewBus returns a bus at generation 1.
func NewBus(now func() time.Time) *Bus {
	if now == nil {
		now = time.Now
	}
	return &Bus{gen: 1, now: now}
}

// Subscribe returns a channel of events; it is closed when ctx ends.
func (b *Bus) Subscribe(ctx context.Context, buffer int) <-chan Event {
	return fanout.Subscribe(ctx, &b.mu, &b.subs, max(buffer, 1))
}

// NextGeneration starts a new generation (an engine restart or a broker switch) and returns it.
func (b *Bus) NextGeneration() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	return b.gen
}

// Generation returns the current generation.
func (b *Bus) Generation() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gen
}

// Publish stamps and delivers an event. Sends never block (a full subscriber loses its
// oldest event), so they happen under the lock, which keeps them off closed channels.
func (b *Bus) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Gen, e.Seq = b.gen, b.seq
	if e.Time.IsZero() {
		e.Time = b.now()
	}
	for _, ch := range b.subs {
		fanout.SendNewest(ch, e)
	}
}
