package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live/termsafe"
)

// detailsModal shows lines about the selected row in a bubbles/viewport (j/k, pgup/pgdn
// scroll; the close keys stay visible).
type detailsModal struct {
	c     *Common
	title string
	lines []string
	vp    *viewport.Model
	keys  string // the row's own keys before "j/k scroll", e.g. "c cancel"
}

func newDetails(c *Common, title string, lines []string) *detailsModal {
	vp := viewport.New()
	vp.SetContentLines(lines)
	return &detailsModal{c: c, title: title, lines: lines, vp: &vp}
}

func (d *detailsModal) Typing() bool { return false }

func (d *detailsModal) View(w, h int) string {
	var lines []string
	if len(d.lines) > 0 {
		// As wide as the longest line but never wider than the frame's inside (the viewport
		// pads every line to its width, and the frame would cut each one with …), as high as
		// the screen allows beside the title, the blank lines, the key line and the border.
		_, inner := frameWidths(96, w)
		d.vp.SetWidth(max(1, min(maxWidth(d.lines), inner)))
		d.vp.SetHeight(max(1, min(len(d.lines), h-6)))
		lines = strings.Split(d.vp.View(), "\n")
	}
	return frame(d.c, d.title, append(lines, "", d.keys+"j/k scroll · esc close"), 96, w, h)
}

func (d *detailsModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if isNo(d.c, msg) || keyIs(msg, d.c.Keys.Details) {
		return closeMsg{}, nil
	}
	if _, ok := msg.(tea.KeyPressMsg); ok {
		*d.vp, _ = d.vp.Update(msg)
	}
	return nil, nil
}

func maxWidth(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// mandateModal shows every limit of the mandate in force; n drafts a new one.
type mandateModal struct{ c *Common }

func (mandateModal) Typing() bool { return false }

func (mm mandateModal) View(w, h int) string {
	s := &mm.c.Data.Snap
	if s.Mandate == nil {
		return frame(mm.c, "Mandate", []string{"No mandate is committed for " + s.Broker + ": every order is denied.", termsafe.Text(s.MandateErr), "",
			"n draft and commit one · esc close"}, 80, w, h)
	}
	md := s.Mandate
	c, u := md.HardCaps, md.Universe
	opt := func(a interface{ String() string }, set bool) string {
		if !set {
			return "none"
		}
		return a.String()
	}
	lines := []string{
		"Id:              " + termsafe.Text(md.MandateID),
		"Consent hash:    " + termsafe.Text(md.Consent.ConsentTokenSHA256),
		"Account ref:     " + termsafe.Text(md.Consent.AccountRef),
		"Committed:       " + termsafe.Text(md.Consent.CreatedAt),
		"Expires:         " + termsafe.Text(md.Consent.ExpiresAt),
		"",
		"Max order:       $" + fmtMoney(c.MaxOrderNotionalUSD, 2),
		"Max exposure:    $" + fmtMoney(c.MaxTotalExposureUSD, 2) + " gross",
		"Funding:         $" + fmtMoney(c.AccountFundingUSD, 2),
		"Max leverage:    " + c.MaxLeverage.String() + "x",
		fmt.Sprintf("Orders per day:  %d", c.MaxTradesPerDay),
		"Instruments:     " + joinStrings(c.AllowedInstruments),
		"Asset classes:   " + joinStrings(u.AssetClasses),
		"Excluded:        " + termsafe.Text(strings.Join(u.ExcludeSymbols, ", ")),
		"Min market cap:  " + opt(u.MinMarketCapUSD, u.MinMarketCapUSD != nil),
		"Min daily volume:" + " " + opt(u.MinAvgDailyVolumeUSD, u.MinAvgDailyVolumeUSD != nil),
		fmt.Sprintf("Flatten on halt: %v", md.FlattenOnHalt),
	}
	if md.HasControls {
		for _, kv := range md.Controls.Fields() {
			lines = append(lines, fmt.Sprintf("%-17s%s", kv[0]+":", kv[1]))
		}
	}
	return frame(mm.c, "Mandate — "+s.Broker, append(lines, "", "n draft a new mandate · esc close"), 90, w, h)
}

func (mm mandateModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch {
	case keyString(msg) == "n":
		return openFormMsg{}, nil
	case isNo(mm.c, msg) || keyIs(msg, mm.c.Keys.Mandate):
		return closeMsg{}, nil
	}
	return nil, nil
}

// auditModal is the full audit view: the newest 500 matching rows, filterable.
type auditModal struct {
	c      *Common
	rows   []AuditRow
	err    error
	filter AuditFilter
	pos    int
	in     *textField
}

func (a *auditModal) Typing() bool { return a.in != nil }

func (a *auditModal) View(w, h int) string {
	rows := h - 10
	lines := []string{fmt.Sprintf("filter: %q · %d rows", a.filter.Text, len(a.rows))}
	if a.in != nil {
		lines[0] = "filter: " + a.in.View(true) + "   (enter apply · esc cancel)"
	}
	if a.err != nil {
		lines = append(lines, a.c.Styles.Critical.Render("audit unreadable: "+a.err.Error()))
	}
	for i := a.pos; i < len(a.rows) && i < a.pos+rows; i++ {
		lines = append(lines, auditLine(a.rows[i], a.c.Privacy))
	}
	lines = append(lines, "", "j/k scroll · g/G top/bottom · / filter · esc close")
	return frame(a.c, "Audit trail", lines, w-4, w, h)
}

// Update takes a page of rows (AuditPageMsg) or a key; enter in the filter asks the root
// for a new page.
func (a *auditModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if p, ok := msg.(AuditPageMsg); ok {
		a.rows, a.err, a.filter, a.pos = p.Rows, p.Err, p.Filter, 0
		return nil, nil
	}
	if a.in != nil {
		done, cancelled := fieldKey(a.in, msg)
		switch {
		case cancelled:
			a.in = nil
		case done:
			f := AuditFilter{Text: strings.TrimSpace(a.in.Value()), Limit: 500}
			a.in = nil
			return auditQueryMsg{f}, nil
		}
		return nil, nil
	}
	keys := a.c.Keys
	switch {
	case isNo(a.c, msg) || keyIs(msg, keys.Audit):
		return closeMsg{}, nil
	case keyIs(msg, keys.Down):
		a.pos = min(a.pos+1, max(0, len(a.rows)-1))
	case keyIs(msg, keys.Up):
		a.pos = max(0, a.pos-1)
	case keyIs(msg, keys.Top):
		a.pos = 0
	case keyIs(msg, keys.Bottom):
		a.pos = max(0, len(a.rows)-1)
	case keyIs(msg, keys.Filter):
		in := newTextField(a.filter.Text)
		a.in = &in
	}
	return nil, nil
}
