package tui

import "cockpit/readmodel"

import "strings"

// Note shows a start-up note (what cockpit did before the screen came up, e.g. the default
// paper mandate it committed) as an info alert, or a warning (WarnNote) as a critical one.
func (m *Model) Note(text string) {
	if w, ok := strings.CutPrefix(text, readmodel.WarnNote); ok {
		m.data.alert(Alert{Level: levelCrit, Kind: "WARN", Source: "start-up", Text: w})
		return
	}
	m.data.alert(Alert{Level: levelInfo, Kind: "INFO", Source: "start-up", Text: text})
}
