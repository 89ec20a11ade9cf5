package metrics

import (
	"context"

	"cockpit/engine/scan"
	"cockpit/live"
	"cockpit/live/jsonv"
)

// KindPluginDisabled is the audit kind the WASM plugin agent writes when it is disabled.
const KindPluginDisabled = "plugin_disabled"

// Sink is an audit sink that counts what the trail records: halts by source, scanner findings
// by rule, plugin disables and loss-limit crossings. It only increments counters and never
// fails, so it can sit beside the store in a live.MultiSink.
type Sink struct{ M *Metrics }

// Record implements live.AuditSink.
func (s Sink) Record(_ context.Context, r live.AuditRecord) error {
	m := s.M
	if m == nil {
		return nil
	}
	switch r.Kind {
	case live.KindHaltTripped:
		m.halts.WithLabelValues(HaltSource(r.Actor)).Inc()
	case KindPluginDisabled:
		m.disables.Inc()
	case live.KindLossLimitCrossed:
		limit := "other"
		if r.Decision != nil {
			limit = Label(r.Decision.Limit)
		}
		m.lossCross.WithLabelValues(limit).Inc()
	case live.KindToolCall:
		for _, rule := range findingRules(r.Detail) {
			m.findings.WithLabelValues(ruleLabel(rule)).Inc()
		}
	}
	return nil
}

// HaltSource names who tripped a halt without naming a person: operator, external (a file
// written from outside), agent, or the cockpit subsystem (watcher, loss-limit, fleet…).
func HaltSource(p live.Principal) string {
	switch p.Kind {
	case live.ActorSystem:
		return Label(p.ID)
	case "":
		return "other"
	}
	return Label(string(p.Kind))
}

// findingRules are the rule ids of a tool call's security warnings (engine: detail
// security_warnings[].rule_id).
func findingRules(detail any) []string {
	o, ok := detail.(*jsonv.Object)
	if !ok {
		return nil
	}
	list, ok := o.Value("security_warnings").([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, w := range list {
		if wo, ok := w.(*jsonv.Object); ok {
			if id, ok := wo.Value("rule_id").(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// ruleLabel is a scanner rule's id, or "other" for an id the scanner does not define.
func ruleLabel(id string) string {
	for _, r := range scan.Rules {
		if r.ID == id {
			return id
		}
	}
	return "other"
}
