package notify

import (
	"context"
	"time"
)

// Link is a connection whose loss is news: the fleet, the broker.
type Link struct {
	Event Event  // EvFleetDown or EvBrokerDown
	Name  string // as the message names it
	// Check reports the link now; known false while it cannot tell yet (no request made).
	Check func() (up, known bool, why string)
}

// LinkWatch polls links and posts when one goes down: after Downs consecutive failed polls
// (so one slow answer is not a page), once per outage; an up poll re-arms it.
type LinkWatch struct {
	F     *Follower
	Links []Link
	Every time.Duration // the poll (0: 2 s)
	Downs int           // failed polls in a row that make an outage (0: 2)
	state []linkState
}

type linkState struct {
	downs int
	sent  bool
}

// Run polls until ctx ends.
func (w *LinkWatch) Run(ctx context.Context) {
	every := w.Every
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.Poll()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll checks every link once.
func (w *LinkWatch) Poll() {
	if len(w.state) != len(w.Links) {
		w.state = make([]linkState, len(w.Links))
	}
	downs := w.Downs
	if downs <= 0 {
		downs = 2
	}
	for i, l := range w.Links {
		up, known, why := l.Check()
		st := &w.state[i]
		switch {
		case !known:
		case up:
			*st = linkState{}
		default:
			st.downs++
			if st.downs >= downs && !st.sent {
				st.sent = true
				w.F.N.Post(Message{Event: l.Event, Priority: PriorityHigh, Ref: l.Name, Title: w.F.title(l.Name + " link down"),
					Text: l.Name + " link down: " + why + "\n" + linkConsequence(l.Event)})
			}
		}
	}
}

func linkConsequence(e Event) string {
	if e == EvFleetDown {
		return "The fleet's shared halt and day count may not reach this host; a fleet halt elsewhere may not stop it. Check the NATS server."
	}
	return "Orders and reads fail while it is down; resting orders and positions at the broker are as they were. Check the connection."
}
