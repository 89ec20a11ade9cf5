package tui

import "testing"

// TestActionWords: each typed action keeps the word the footer and alerts showed when the
// action was a string.
func TestActionWords(t *testing.T) {
	want := map[Action]string{ActHalt: "halt", ActHaltBroker: "halt broker", ActResume: "resume", ActReduce: "reduce",
		ActApprove: "approve", ActDeny: "deny", ActCancel: "cancel", ActClose: "close", ActExport: "export", 0: "action"}
	for a, w := range want {
		if got := a.String(); got != w {
			t.Errorf("action %d: got %q, want %q", a, got, w)
		}
	}
}
