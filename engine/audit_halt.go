package engine

import (
	"fmt"

	"cockpit/live/gate"
)

// auditFailed trips the gate's halt latch (HALTED audit_unavailable) after one of the engine's
// own audit records could not be written: no record, no trade (DV15).
func (e *Engine) auditFailed(what string, err error) {
	e.log().Error("audit write failed", "what", what, "err", err)
	e.SetHalted(true)
	if e.Gate != nil {
		e.Gate.TripAuditHalt(fmt.Errorf("audit record %s: %w", what, err))
	}
}

// latched reports the gate's in-memory halt latch.
func (e *Engine) latched() (gate.AuditHalt, bool) {
	if e.Gate == nil {
		return gate.AuditHalt{}, false
	}
	return e.Gate.Latched()
}

// AuditHalted pauses the agent for good on the gate's halt latch and says why on the bus.
func (e *Engine) AuditHalted(h gate.AuditHalt) {
	e.SetHalted(true)
	e.publish(Event{Kind: EvError, Message: h.Message()})
}

// LossHalted pauses the agent on a crossed loss limit (the gate tripped the broker's HALT,
// which the halt watcher acts on too) and says which limit on the bus.
func (e *Engine) LossHalted(h gate.LossHalt) {
	e.SetHalted(true)
	e.publish(Event{Kind: EvLossLimit, Loss: &h, Message: h.Message()})
}
