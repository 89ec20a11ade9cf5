package session

import (
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/readmodel"
	"cockpit/store"
)

// HaltLine says why, where, by whom and when a halt sentinel was written (the screen's line).
func HaltLine(a *halt.Attribution, scope live.Scope) string { return haltLine(a, scope) }

// AuditRow is an audit event as the screen lists it.
func AuditRow(e store.Event) readmodel.AuditRow { return auditRow(e) }
