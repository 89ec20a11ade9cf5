package tui

// Note shows a start-up note (what cockpit did before the screen came up, e.g. the default
// paper mandate it committed) as an info alert.
func (m *Model) Note(text string) {
	m.data.alert(Alert{Level: levelInfo, Kind: "INFO", Source: "start-up", Text: text})
}
