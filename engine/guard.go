package engine

import (
	"fmt"
	"time"

	"cockpit/live"
)

// Denial pacing: an agent that keeps hitting the gate is paused instead of hammering it.
const (
	denialBurst  = 5           // this many denied writes…
	denialWindow = time.Minute // …within this window pause the agent…
	coolDown     = time.Minute // …for this long
	// recentDenialTTL is how long a human's denial answers the same order again.
	recentDenialTTL = 10 * time.Minute
)

type priorDenial struct {
	id, why string
	at      time.Time
}

// noteDenial counts a denied write; the fifth in a minute pauses the agent for a minute and
// stops its running turn.
func (e *Engine) noteDenial(tool string, code live.Reason) {
	if code == live.ReasonCoolingDown || code == live.ReasonHalted || code == live.ReasonCancelled { // cancelled: cut off by us, not refused
		return
	}
	now := e.now()
	e.mu.Lock()
	e.denials = append(prune(e.denials, now.Add(-denialWindow)), now)
	trip := len(e.denials) >= denialBurst && !now.Before(e.coolTill)
	if trip {
		e.coolTill = now.Add(coolDown)
		e.coolWhy = fmt.Sprintf("%d denied writes within a minute", denialBurst)
		e.denials = nil
		if e.cancel != nil {
			e.cancel()
		}
	}
	e.mu.Unlock()
	if trip {
		msg := "the agent is paused for 1m0s: 5 denied writes within a minute (last: " + tool + " " + string(code) + ")"
		e.log().Warn("agent cooling down", "tool", tool, "code", string(code))
		e.publish(Event{Kind: EvError, Tool: tool, Message: msg})
	}
}

// coolingDown returns how long the agent stays paused after a burst of denials.
func (e *Engine) coolingDown() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.coolTill.Sub(e.now())
}

// CoolingDown reports until when and why the agent is auto-paused after a burst of denied
// writes; a zero time when it is not.
func (e *Engine) CoolingDown() (until time.Time, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.coolTill.After(e.now()) {
		return time.Time{}, ""
	}
	return e.coolTill, e.coolWhy
}

// recentDenial returns a human's denial of the same order digest in the last ten minutes.
func (e *Engine) recentDenial(digest string) (priorDenial, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.refusals[digest]
	if !ok || e.now().Sub(p.at) > recentDenialTTL {
		return priorDenial{}, false
	}
	return p, true
}

func (e *Engine) rememberDenial(digest, id, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refusals == nil {
		e.refusals = map[string]priorDenial{}
	}
	now := e.now()
	for d, p := range e.refusals {
		if now.Sub(p.at) > recentDenialTTL {
			delete(e.refusals, d)
		}
	}
	e.refusals[digest] = priorDenial{id: id, why: why, at: now}
}

func (e *Engine) reviewPoll() time.Duration {
	if e.ReviewPoll > 0 {
		return e.ReviewPoll
	}
	return time.Second // a resolution in this process wakes the wait at once (store.WaitResolved)
}
