package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live"
)

// openDetails opens the drawer for the selected row of the focused pane.
func (m *Model) openDetails() {
	id := m.selectedID(m.focus)
	if id == "" {
		return
	}
	var lines []string
	title := paneNames[m.focus] + " " + id
	switch m.focus {
	case paneOrders:
		for _, o := range m.data.View().Orders {
			if o.ID == id {
				lines = orderDetails(m, o)
			}
		}
	case panePositions:
		for _, p := range m.data.View().Positions {
			if p.Symbol == id {
				lines = []string{"Symbol:     " + p.Symbol, "Quantity:   " + qty(p.Qty), "Avg price:  " + m.c.amt(p.AvgPrice, false),
					"Value:      " + m.c.amt(p.MarketValue, false), "Unrealized: " + m.c.amt(p.UnrealizedPnL, false),
					"Realized:   " + m.c.amt(p.RealizedPnL, false), "", "x closes it (reduce-only, through the gate, y/N)"}
			}
		}
	case paneApprovals:
		if it, ok := m.selectedReview(); ok {
			m.modal = &approveModal{item: it}
			return
		}
	case paneAlerts:
		for _, a := range m.data.Alerts.list {
			if a.ID == id {
				lines = []string{"Time:   " + a.Time.UTC().Format("2006-01-02 15:04:05 UTC"), "Kind:   " + a.Kind, "Source: " + untrusted(a.Source, 80)}
				if a.Untrusted {
					lines = append(lines, "", "UNTRUSTED content, shown escaped and never acted on:")
				}
				lines = append(lines, wrap(untrusted(a.Text, 2000), 88)...)
			}
		}
	case paneAudit:
		for _, e := range m.data.Snap.Audit {
			if fmt.Sprint(e.Seq) == id {
				lines = auditDetails(e)
			}
		}
	default:
		return
	}
	m.modal = &detailsModal{title: title, lines: lines}
}

func orderDetails(m *Model, o live.Order) []string {
	lines := []string{"Order:      " + o.ID, "Client id:  " + o.ClientOrderID, "Symbol:     " + o.Symbol,
		"Side:       " + o.Side, "Type:       " + string(o.Type), "Quantity:   " + qtyOf(&o)}
	if o.LimitPrice != nil {
		lines = append(lines, "Limit:      "+m.c.amt(*o.LimitPrice, false))
	}
	lines = append(lines, "Filled:     "+qty(o.FilledQty)+" @ "+m.c.amt(o.AvgFillPrice, false), "Status:     "+string(o.Status),
		"Created:    "+o.CreatedAt.UTC().Format("15:04:05"), "Origin:     "+m.data.View().Origins[o.ClientOrderID], "",
		"c cancels it (y/N)")
	return lines
}

func auditDetails(e AuditRow) []string {
	return []string{"Seq:     " + fmt.Sprint(e.Seq), "Time:    " + e.Time.UTC().Format("2006-01-02 15:04:05.000 UTC"),
		"Actor:   " + e.Actor, "Type:    " + e.Type, "Outcome: " + e.Outcome, "Reason:  " + e.Reason, "Tool:    " + e.Tool,
		"Order:   " + e.OrderID, "Summary: " + untrusted(e.Summary, 200)}
}

// wrap splits text into lines of at most w runes.
func wrap(s string, w int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		r := []rune(para)
		for len(r) > w {
			out = append(out, string(r[:w]))
			r = r[w:]
		}
		out = append(out, string(r))
	}
	return out
}

// mandateModal shows every limit of the mandate in force; n drafts a new one.
type mandateModal struct{}

func (mandateModal) typing() bool { return false }

func (mandateModal) view(m *Model, w, h int) string {
	s := &m.data.Snap
	if s.Mandate == nil {
		return frame(m, "Mandate", []string{"No mandate is committed for " + s.Broker + ": every order is denied.", s.MandateErr, "",
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
		"Id:              " + md.MandateID,
		"Consent hash:    " + md.Consent.ConsentTokenSHA256,
		"Account ref:     " + md.Consent.AccountRef,
		"Committed:       " + md.Consent.CreatedAt,
		"Expires:         " + md.Consent.ExpiresAt,
		"",
		"Max order:       $" + fmtMoney(c.MaxOrderNotionalUSD, 2),
		"Max exposure:    $" + fmtMoney(c.MaxTotalExposureUSD, 2) + " gross",
		"Funding:         $" + fmtMoney(c.AccountFundingUSD, 2),
		"Max leverage:    " + c.MaxLeverage.String() + "x",
		fmt.Sprintf("Orders per day:  %d", c.MaxTradesPerDay),
		"Instruments:     " + joinStrings(c.AllowedInstruments),
		"Asset classes:   " + joinStrings(u.AssetClasses),
		"Excluded:        " + strings.Join(u.ExcludeSymbols, ", "),
		"Min market cap:  " + opt(u.MinMarketCapUSD, u.MinMarketCapUSD != nil),
		"Min daily volume:" + " " + opt(u.MinAvgDailyVolumeUSD, u.MinAvgDailyVolumeUSD != nil),
		fmt.Sprintf("Flatten on halt: %v", md.FlattenOnHalt),
	}
	if md.HasControls {
		ctl := md.Controls
		for _, kv := range ctl.Fields() {
			lines = append(lines, fmt.Sprintf("%-17s%s", kv[0]+":", kv[1]))
		}
	}
	return frame(m, "Mandate — "+s.Broker, append(lines, "", "n draft a new mandate · esc close"), 90, w, h)
}

func (mandateModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case k.String() == "n":
		m.modal = &formModal{form: NewMandateForm(m.data.Snap.Broker, m.data.Snap.Mandate)}
	case isNo(m, k) || key.Matches(k, m.c.Keys.Mandate):
		m.modal = nil
	}
	return nil
}

func joinStrings[T ~string](xs []T) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return strings.Join(out, ", ")
}

// auditModal is the full audit view: the newest 500 matching rows, filterable.
type auditModal struct {
	rows   []AuditRow
	err    error
	filter AuditFilter
	pos    int
	in     *textField
}

func (a *auditModal) typing() bool { return a.in != nil }

func (a *auditModal) view(m *Model, w, h int) string {
	rows := h - 10
	lines := []string{fmt.Sprintf("filter: %q · %d rows", a.filter.Text, len(a.rows))}
	if a.in != nil {
		lines[0] = "filter: " + a.in.View(true) + "   (enter apply · esc cancel)"
	}
	if a.err != nil {
		lines = append(lines, m.c.Styles.Critical.Render("audit unreadable: "+a.err.Error()))
	}
	for i := a.pos; i < len(a.rows) && i < a.pos+rows; i++ {
		lines = append(lines, auditLine(a.rows[i], m))
	}
	lines = append(lines, "", "j/k scroll · g/G top/bottom · / filter · esc close")
	return frame(m, "Audit trail", lines, w-4, w, h)
}

func (a *auditModal) paste(p tea.PasteMsg) {
	if a.in != nil {
		a.in.Update(p)
	}
}

func (a *auditModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if a.in != nil {
		done, cancelled := fieldKey(a.in, k)
		switch {
		case cancelled:
			a.in = nil
		case done:
			f := AuditFilter{Text: strings.TrimSpace(a.in.Value()), Limit: 500}
			a.in = nil
			return m.loadAudit(f)
		}
		return nil
	}
	keys := m.c.Keys
	switch {
	case isNo(m, k) || key.Matches(k, keys.Audit):
		m.modal = nil
	case key.Matches(k, keys.Down):
		a.pos = min(a.pos+1, max(0, len(a.rows)-1))
	case key.Matches(k, keys.Up):
		a.pos = max(0, a.pos-1)
	case key.Matches(k, keys.Top):
		a.pos = 0
	case key.Matches(k, keys.Bottom):
		a.pos = max(0, len(a.rows)-1)
	case key.Matches(k, keys.Filter):
		in := newTextField(a.filter.Text)
		a.in = &in
	}
	return nil
}
