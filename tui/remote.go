package tui

import (
	"strings"

	"cockpit/live/termsafe"
)

// Remote is the line under the status bar that says who is connected over SSH, "ssh:
// alice@laptop (operator), bob (viewer)" (Snapshot.Remote), so everyone watching knows who
// else may act; "" when nobody is.
func (b statusBar) Remote(w int) string {
	r := b.c.Data.Snap.Remote
	if len(r) == 0 {
		return ""
	}
	return b.c.Styles.Muted.Render(fit(" ssh: "+termsafe.Text(strings.Join(r, ", ")), w))
}
