package session

import (
	"fmt"
	"os/user"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// OperatorName is who a sentinel or audit record attributes an operator action to
// ("cli:<user>"; the screen writes "tui:<user>").
func OperatorName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}

// SentinelRecord is the audit record of an operator tripping or clearing a sentinel.
func SentinelRecord(auditKind, outcome string, kind live.Sentinel, scope live.Scope, reason string) live.AuditRecord {
	broker := scope.Broker
	if scope.Global {
		broker = ""
	}
	return live.AuditRecord{Kind: auditKind, Outcome: outcome, Broker: broker, Reason: live.Reason(kind),
		Intent: fmt.Sprintf("%s %s (%s): %s", strings.ToLower(auditKind), kind, scope, reason),
		Detail: jsonv.ObjectOf("sentinel", string(kind), "scope", scope.String(), "reason", reason)}
}
