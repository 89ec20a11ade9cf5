package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live/termsafe"
)

// alertsPane lists the alerts, newest first; enter shows one in full (escaped).
type alertsPane struct{ list }

func newAlertsPane(c *Common) *alertsPane {
	p := &alertsPane{list{paneBase: paneBase{c: c, index: paneAlerts}, log: true}}
	p.all = p.alertRows
	return p
}

func (p *alertsPane) View() string {
	if p.h < 3 {
		return ""
	}
	return p.box("", false, p.lines("", p.filtered(), p.w-2, p.h-2, false))
}

func (p *alertsPane) alertRows() []row {
	groups := groupAlerts(p.c.Data.Alerts.list)
	out := make([]row, 0, len(groups))
	for _, g := range groups {
		out = append(out, row{id: g.last.ID, n: 1, draw: func(bool) []string {
			if g.count > 1 {
				return []string{fmt.Sprintf("×%d ", g.count) + alertLine(g.last, p.c.Styles)}
			}
			return []string{alertLine(g.last, p.c.Styles)}
		}})
	}
	return out
}

func alertLine(a Alert, st Styles) string {
	glyph, style := "·", st.Text
	switch a.Level {
	case levelWarn:
		glyph, style = "⚠", st.Warn
	case levelCrit:
		glyph, style = "✖", st.Critical
	}
	text := a.Text
	if a.Untrusted {
		text = "UNTRUSTED \"" + untrusted(text, 200) + "\""
	} else {
		text = untrusted(text, 200)
	}
	return fmt.Sprintf("%s %s %-9s %s %s", a.Time.UTC().Format("15:04:05"), style.Render(glyph), style.Render(a.Kind),
		st.Muted.Render(untrusted(a.Source, 24)), text)
}

func (p *alertsPane) Details() tea.Msg {
	id := p.SelectedID()
	if id == "" {
		return nil
	}
	var lines []string
	for _, a := range p.c.Data.Alerts.list {
		if a.ID == id {
			lines = []string{"Time:   " + a.Time.UTC().Format("2006-01-02 15:04:05 UTC"), "Kind:   " + a.Kind, "Source: " + untrusted(a.Source, 80)}
			if a.Untrusted {
				lines = append(lines, "", "UNTRUSTED content, shown escaped and never acted on:")
			}
			lines = append(lines, wrap(untrusted(a.Text, 2000), 88)...)
		}
	}
	return p.detailsOf(id, lines)
}

// auditPane is the audit tail: the newest events of the snapshot.
type auditPane struct{ list }

func newAuditPane(c *Common) *auditPane {
	p := &auditPane{list{paneBase: paneBase{c: c, index: paneAudit}, log: true}}
	p.all = p.auditRows
	return p
}

func (p *auditPane) View() string {
	if p.h < 3 {
		return ""
	}
	return p.box("", false, p.lines("", p.filtered(), p.w-2, p.h-2, false))
}

func (p *auditPane) ShortHelp() []key.Binding { return []key.Binding{hint("L", "full log")} }

func (p *auditPane) auditRows() []row {
	audit := p.c.Data.Snap.Audit
	out := make([]row, 0, len(audit))
	for _, e := range audit {
		out = append(out, row{id: fmt.Sprint(e.Seq), n: 1, draw: func(bool) []string { return []string{auditLine(e, p.c.Privacy)} }})
	}
	return out
}

func (p *auditPane) Details() tea.Msg {
	id := p.SelectedID()
	if id == "" {
		return nil
	}
	var lines []string
	for _, e := range p.c.Data.Snap.Audit {
		if fmt.Sprint(e.Seq) == id {
			lines = auditDetails(e)
		}
	}
	return p.detailsOf(id, lines)
}

func auditLine(e AuditRow, privacy bool) string {
	reason := ""
	if e.Reason != "" {
		reason = " " + e.Reason
	}
	summary := untrusted(roundDollars(e.Summary), 80)
	if privacy {
		summary = maskDigits(summary)
	}
	mark := ""
	if e.Unverified {
		mark = "✖UNVERIFIED "
	}
	return fmt.Sprintf("%s #%d %s%-18s %s %s%s %s", e.Time.UTC().Format("15:04:05"), e.Seq, mark, clip(termsafe.Text(e.Actor), 18),
		termsafe.Text(auditWhat(e)), termsafe.Text(e.Outcome), termsafe.Text(reason), summary)
}

func auditDetails(e AuditRow) []string {
	lines := []string{"Seq:     " + fmt.Sprint(e.Seq), "Time:    " + e.Time.UTC().Format("2006-01-02 15:04:05.000 UTC"),
		"Actor:   " + termsafe.Text(e.Actor), "Type:    " + termsafe.Text(e.Type), "Outcome: " + termsafe.Text(e.Outcome),
		"Reason:  " + termsafe.Text(e.Reason), "Tool:    " + termsafe.Text(e.Tool), "Order:   " + termsafe.Text(e.OrderID)}
	if e.Unverified {
		lines = append(lines, "Chain:   UNVERIFIED (at or after the first break of the hash chain)")
	}
	for i, l := range wrapWords(untrusted(e.Summary, 2000), 78) {
		lines = append(lines, map[bool]string{true: "Summary: ", false: "         "}[i == 0]+l)
	}
	return lines
}
