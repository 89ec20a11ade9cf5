package tui

import "cockpit/live/termsafe"

// superviseBanner says the screen supervises another process's account (issue 14): who owns
// it, or that the owner is gone and X flattens with the broker itself; "" when this screen's
// own process owns the account.
func (b statusBar) superviseBanner(w int) string {
	s := &b.c.Data.Snap
	if s.Supervising == "" {
		return ""
	}
	who := termsafe.Text(s.Supervising)
	if s.OwnerGone {
		return b.c.Styles.Critical.Render(fit(" "+who+" — X flattens here", w))
	}
	return b.c.Styles.Warn.Render(fit(" "+who+" — actions run in the owner", w))
}
