package session

import (
	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
)

// ID is the session's id (its row in the store and the SessionID of its audit records).
func (s *Session) ID() string { return s.id }

// Key is the broker key the session trades on.
func (s *Session) Key() string { return s.key }

// Runtime is the session's root, config, store, log and audit trail.
func (s *Session) Runtime() *Runtime { return s.rt }

// Broker is the session's broker.
func (s *Session) Broker() live.Broker { return s.broker }

// Gate is the session's gate: every order of the agent, the screen and a quit passes it.
func (s *Session) Gate() *gate.Gate { return s.gate }

// Engine is the session's engine (its tools, turns and review queue).
func (s *Session) Engine() *engine.Engine { return s.eng }

// Bus is the engine's event bus: decisions, order updates, reviews, halts and flattens.
func (s *Session) Bus() *engine.Bus { return s.eng.Bus }

// AgentName names the running agent ("none" without one).
func (s *Session) AgentName() string {
	if s.agent == nil {
		return "none"
	}
	return s.agent.Name()
}

// OnQuit is what Quit does with resting orders: "halt" or "leave".
func (s *Session) OnQuit() string { return s.onQuit }

// SetOnQuit changes what Quit does ("halt" or "leave"), e.g. as the operator chose on the screen.
func (s *Session) SetOnQuit(v string) { s.onQuit = v }

// Voided counts the review items an earlier run left pending and Open voided.
func (s *Session) Voided() int64 { return s.voided }

// Notes are what Open did that the operator should hear at start (e.g. the default paper
// mandate it committed).
func (s *Session) Notes() []string { return s.notes }

// StoreChecked is closed once the store's start-up check of its pages has finished (orders
// wait for it; one that failed has tripped the audit halt first).
func (s *Session) StoreChecked() <-chan struct{} { return s.pages.finished() }

// Latched reports the gate's audit halt (DV15), if it tripped.
func (s *Session) Latched() (gate.AuditHalt, bool) { return s.gate.Latched() }

// Halted says whether trading on the session's broker is halted now, and why: the gate's
// audit latch, the watcher's latch, or a HALT file (global or the broker's; one that cannot
// be read counts). A run asks before on_quit writes its own HALT.
func (s *Session) Halted() (string, bool) {
	if h, ok := s.gate.Latched(); ok {
		return h.Message(), true
	}
	if on, why := s.latch.Halted(); on {
		return "HALTED in memory: " + why, true
	}
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: s.key}} {
		if a, _ := halt.ReadSentinel(s.rt.Root, live.HaltSentinel, scope); a != nil {
			return "HALTED " + haltLine(a, scope), true
		}
	}
	if halt.IsHalted(s.rt.Root, s.key) {
		return "HALTED: a HALT file of " + s.key + " cannot be read", true
	}
	return "", false
}
