package tui

// remoteView is the quit question on a screen served over SSH: quitting disconnects this
// screen only; the agent and the other screens go on.
func (q *quitModal) remoteView(w, h int) string {
	k := q.c.Styles.Key.Render
	return frame(q.c, "Disconnect", []string{
		"The cockpit keeps running: the agent trades on and other screens stay.",
		"",
		k("h") + "  halt and cancel resting orders, then disconnect",
		k("y") + "  disconnect",
		k("n") + "  back (default; esc too)",
		"",
		"ctrl+c again within 2 s = h",
	}, 74, w, h)
}
