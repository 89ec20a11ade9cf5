package engine

import (
	"fmt"
	"time"

	"cockpit/live"
)

// Denial pacing: an agent that keeps hitting the gate is paused instead of hammering it. Each
// agent is paced on its own (an MCP client session is an agent): one noisy client's denials
// never pause another.
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

// pace is one agent's denial pacing: its denied writes in the last minute and its pause.
type pace struct {
	denials []time.Time
	till    time.Time // paused until then after too many denials
	why     string
}

// maxPaces is how many agents' pacing the engine keeps before it sweeps the idle ones.
const maxPaces = 256

// noteDenial counts a denied write against the agent (the turn's limits key); its fifth in a
// minute pauses that agent, and only that agent, for a minute and stops its running turn. A
// refusal that is not the agent's doing is not counted: the pause itself, a halt, a cut-off
// call, a submit lock another order holds (a retry, not a denial).
func (e *Engine) noteDenial(key, tool string, code live.Reason) {
	switch code {
	case live.ReasonCoolingDown, live.ReasonHalted, live.ReasonCancelled, live.ReasonLockBusy:
		return
	}
	now := e.now()
	e.mu.Lock()
	if e.paces == nil {
		e.paces = map[string]*pace{}
	}
	if len(e.paces) >= maxPaces {
		e.sweepPaces(now)
	}
	p := e.paces[key]
	if p == nil {
		p = &pace{}
		e.paces[key] = p
	}
	p.denials = append(prune(p.denials, now.Add(-denialWindow)), now)
	trip := len(p.denials) >= denialBurst && !now.Before(p.till)
	if trip {
		p.till = now.Add(coolDown)
		p.why = fmt.Sprintf("%d denied writes within a minute", denialBurst)
		p.denials = nil
		if e.cancel != nil && e.running == key {
			e.cancel()
		}
	}
	e.mu.Unlock()
	if trip {
		msg := "agent " + key + " is paused for 1m0s: 5 denied writes within a minute (last: " + tool + " " + string(code) + ")"
		e.log().Warn("agent cooling down", "agent", key, "tool", tool, "code", string(code))
		e.publish(Event{Kind: EvError, Tool: tool, Message: msg})
	}
}

// sweepPaces drops the pacing of agents with no recent denial and no pause (mu held).
func (e *Engine) sweepPaces(now time.Time) {
	for k, p := range e.paces {
		if len(prune(p.denials, now.Add(-denialWindow))) == 0 && !p.till.After(now) {
			delete(e.paces, k)
		}
	}
}

// coolingDown returns how long the agent (a turn's limits key) stays paused after a burst of
// denials.
func (e *Engine) coolingDown(key string) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.paces[key]
	if p == nil {
		return 0
	}
	return p.till.Sub(e.now())
}

// CoolingDown reports until when and why an agent is auto-paused after a burst of denied
// writes (the pause that ends last, naming its agent); a zero time when none is.
func (e *Engine) CoolingDown() (until time.Time, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	for k, p := range e.paces {
		if !p.till.After(now) {
			continue
		}
		if w := k + ": " + p.why; p.till.After(until) || (p.till.Equal(until) && w < why) {
			until, why = p.till, w
		}
	}
	return until, why
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
