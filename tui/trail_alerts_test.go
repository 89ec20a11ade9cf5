package tui

import "cockpit/readmodel"

// trailAlerts feeds alerts as the audit trail raises them: a snapshot whose Alerts end with
// them (each with the next seq).
func trailAlerts(m *Model, alerts ...readmodel.TrailAlert) {
	s := m.data.Snap
	seq := m.data.alertSeq
	for _, a := range alerts {
		seq++
		a.Seq = seq
		if a.Time.IsZero() {
			a.Time = m.now()
		}
		s.Alerts = append(s.Alerts, a)
	}
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
}

// finding is the trail's alert of a scanner finding in a tool's result.
func finding(tool, text string) readmodel.TrailAlert {
	return readmodel.TrailAlert{Level: readmodel.AlertCrit, Kind: "INJECTION", Source: tool, Text: text, Untrusted: true}
}

// denial is the trail's alert of an order the gate refused.
func denial(source, text string) readmodel.TrailAlert {
	return readmodel.TrailAlert{Level: readmodel.AlertWarn, Kind: "DENIED", Source: source, Text: text}
}
