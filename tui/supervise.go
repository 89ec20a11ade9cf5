package tui

// superviseBanner says the screen supervises another process's account (issue 14): who owns
// it, or that the owner is gone and X flattens with the broker itself; "" when this screen's
// own process owns the account.
func (b statusBar) superviseBanner(w int) string {
	s := &b.c.Data.Snap
	if s.Supervising == "" {
		return ""
	}
	if s.OwnerGone {
		return b.c.Styles.Critical.Render(fit(" "+s.Supervising+" — X flattens here", w))
	}
	return b.c.Styles.Warn.Render(fit(" "+s.Supervising+" — actions run in the owner", w))
}
