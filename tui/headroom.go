package tui

import (
	"cockpit/readmodel"

	"fmt"
	"maps"
	"slices"
	"strings"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/live/termsafe"
)

// headroomPane shows a gauge per mandate limit and, when there is room, the charts of the
// session (the symbol of the selected order or position).
type headroomPane struct {
	paneBase
	orders    *ordersPane
	positions *positionsPane
}

func (p *headroomPane) View() string {
	if p.h < 3 {
		return ""
	}
	iw, ih := p.w-2, p.h-2
	return p.box("", false, p.headroomLines(iw, ih, iw < 58))
}

// gauge is one mandate limit: how much is used.
type gauge struct {
	label       string
	used, limit float64
	text        string // "4.1k / 5k"
	unknown     bool   // the book was not read: the level is unknown, not zero
}

// gauges computes the headroom of every limit from the snapshot.
func (p *headroomPane) gauges() []gauge {
	s := &p.c.Data.Snap
	if s.Mandate == nil {
		return nil
	}
	c := s.Mandate.HardCaps
	gross := p.c.Data.Gross
	lev := money.Zero
	if c.AccountFundingUSD.Sign() > 0 {
		lev = gross.Div(c.AccountFundingUSD)
	}
	openMax := s.LargestResting() // a per-order breach is live only while that order rests
	pair := func(used, limit money.Amount) string {
		return p.c.amt(used, true) + " / " + p.c.amt(limit, true)
	}
	gs := []gauge{
		{"per-order notional", openMax.Float64(), c.MaxOrderNotionalUSD.Float64(), pair(openMax, c.MaxOrderNotionalUSD), false},
		{"total exposure", gross.Float64(), c.MaxTotalExposureUSD.Float64(), pair(gross, c.MaxTotalExposureUSD), false},
		{"leverage", lev.Float64(), c.MaxLeverage.Float64(), fmt.Sprintf("%sx / %sx", lev.Round(2).StringFixed(2), c.MaxLeverage.Round(2)), false},
		{"trades today", float64(s.OrdersToday), float64(c.MaxTradesPerDay), fmt.Sprintf("%d / %d", s.OrdersToday, c.MaxTradesPerDay), false},
		{"funding", gross.Float64(), c.AccountFundingUSD.Float64(), pair(gross, c.AccountFundingUSD), false},
	}
	if s.CountErr != "" { // the gate cannot count the day: it denies, and 0 would be a lie
		gs[3].used, gs[3].unknown, gs[3].text = 0, true, fmt.Sprintf("? / %d (count unreadable: denied)", c.MaxTradesPerDay)
	}
	if s.BookUnread() { // the book was not read: its levels are unknown, not zero
		for i := range gs {
			if g := &gs[i]; g.label != "trades today" {
				_, limit, _ := strings.Cut(g.text, " / ")
				g.used, g.unknown, g.text = 0, true, "? / "+limit+" (book not read)"
			}
		}
	}
	gs = append(gs, p.lossGauges(s)...)
	if !s.Expires.IsZero() && !s.Committed.IsZero() {
		total, used := s.Expires.Sub(s.Committed), p.c.Now().Sub(s.Committed)
		gs = append(gs, gauge{"mandate expiry", used.Seconds(), total.Seconds(), age(s.Expires.Sub(p.c.Now())) + " left", false})
	}
	return gs
}

// lossGauges are the mandate's loss limits as the gate last read them (used / limit), or
// unknown when it could not read the equity or the day's mark (it then denies orders that add
// exposure), or not yet read.
func (p *headroomPane) lossGauges(s *readmodel.Snapshot) []gauge {
	c := s.Mandate.Controls
	if !c.HasLossLimits() {
		return nil
	}
	var gs []gauge
	for _, g := range s.Loss {
		switch g.Limit {
		case live.LimitDailyLoss:
			gs = append(gs, gauge{"daily loss", g.Used.Float64(), g.Value.Float64(), p.c.amt(g.Used, true) + " / " + p.c.amt(g.Value, true), false})
		case live.LimitDrawdown:
			gs = append(gs, gauge{"drawdown", g.Used.Float64(), g.Value.Float64(), g.Used.Round(2).String() + "% / " + g.Value.String() + "%", false})
		}
	}
	if len(gs) > 0 && s.LossErr == "" {
		return gs
	}
	why := "(not read yet)"
	if s.LossErr != "" {
		why = "(equity unreadable: adds denied)"
	}
	gs = gs[:0]
	if c.MaxDailyLossUSD != nil {
		gs = append(gs, gauge{"daily loss", 0, c.MaxDailyLossUSD.Float64(), "? / " + p.c.amt(*c.MaxDailyLossUSD, true) + " " + why, true})
	}
	if c.MaxDrawdownPct != nil {
		gs = append(gs, gauge{"drawdown", 0, c.MaxDrawdownPct.Float64(), "? / " + c.MaxDrawdownPct.String() + "% " + why, true})
	}
	return gs
}

// marker is the text that carries a gauge's level without colour.
func marker(pct float64) string {
	switch {
	case pct > 100:
		return "✖ OVER"
	case pct >= 90:
		return "‼ CRIT"
	case pct >= 70:
		return "! WARN"
	}
	return ""
}

// gaugeLine renders one gauge: label, bar, percent, marker and values, in w cells.
func (p *headroomPane) gaugeLine(g gauge, w int, compact bool) string {
	st := p.c.Styles
	pct := percent(g.used, g.limit)
	style := st.Profit
	switch {
	case pct >= 90:
		style = st.Critical
	case pct >= 70:
		style = st.Warn
	}
	barW := 10
	if compact {
		barW = 8
	}
	filled := int(min(pct, 100) / 100 * float64(barW))
	bar := style.Render(strings.Repeat("█", filled)) + st.Muted.Render(strings.Repeat("░", barW-filled))
	label := g.label
	if compact {
		label = shortLabel[g.label]
	}
	lw := 19
	if compact {
		lw = 7
	}
	text := g.text
	if p.c.Privacy && g.label != "trades today" && g.label != "mandate expiry" && g.label != "leverage" {
		text = "•••"
	}
	pctText, mark := fmt.Sprintf("%4.0f%%", pct), marker(pct)
	if g.unknown {
		pctText, mark = "   ?%", "? UNKN"
	}
	line := fmt.Sprintf("%-*s%s %s %-6s %s", lw, label, bar, style.Render(pctText), mark, text)
	return fit(line, w)
}

var shortLabel = map[string]string{"per-order notional": "order", "total exposure": "exp", "leverage": "lev",
	"trades today": "trades", "funding": "fund", "mandate expiry": "expiry", "daily loss": "loss", "drawdown": "ddown"}

// worstHeadroom is the most used limit, for the too-small screen.
func (p *headroomPane) worstHeadroom() (string, float64) {
	name, worst := "", -1.0
	for _, g := range p.gauges() {
		if p := percent(g.used, g.limit); p > worst && g.label != "mandate expiry" && !g.unknown {
			name, worst = g.label, p
		}
	}
	return name, worst
}

// headroomLines is the headroom pane: a gauge per limit, then the charts.
func (p *headroomPane) headroomLines(w, h int, compact bool) []string {
	gs := p.gauges()
	if gs == nil {
		msg := "no mandate: every order is denied"
		switch st := p.c.Data.Snap.MandateState; {
		case st == live.MandateTampered || st == live.MandateUnverified:
			msg = "mandate " + termsafe.Text(p.c.Data.Snap.MandateErr)
		case p.c.Data.Snap.MandateErr != "":
			msg = "mandate invalid: " + termsafe.Text(p.c.Data.Snap.MandateErr)
		}
		return []string{p.c.Styles.Critical.Render(msg), "", "M shows the mandate · M then n drafts a new one"}
	}
	var out []string
	for _, g := range gs {
		out = append(out, p.gaugeLine(g, w, compact))
		if g.label == "per-order notional" {
			out = append(out, p.perOrderLines(w)...)
		}
	}
	return append(out, p.moneyLines(w, h-len(out))...)
}

// chartSymbol is the symbol of the selected order or position, else the first quoted one.
func (p *headroomPane) chartSymbol() string {
	v := p.c.Data.View()
	for _, o := range v.Orders {
		if o.ID == p.orders.sel && p.orders.focused {
			return o.Symbol
		}
	}
	for _, pos := range v.Positions {
		if pos.Symbol == p.positions.sel {
			return pos.Symbol
		}
	}
	if len(v.Positions) > 0 {
		return v.Positions[0].Symbol
	}
	if keys := slices.Sorted(maps.Keys(v.Quotes)); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// headroomStrip is every gauge on one line (narrow layouts): "order 68% · exp 9% …".
func (p *headroomPane) headroomStrip() string {
	var parts []string
	for _, g := range p.gauges() {
		p := percent(g.used, g.limit)
		text := fmt.Sprintf("%s %.0f%%", shortLabel[g.label], p)
		if mk := marker(p); mk != "" {
			text += " " + mk
		}
		if g.unknown {
			text = shortLabel[g.label] + " ?"
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return p.c.Styles.Critical.Render("no mandate: every order is denied")
	}
	return strings.Join(parts, " · ")
}

// perOrderLines follow the per-order gauge (which measures the largest resting order): the
// last and the largest order accepted today, and the approved breaches of the day, which are
// history, not a live breach.
func (p *headroomPane) perOrderLines(w int) []string {
	s := &p.c.Data.Snap
	last, top := "—", "—"
	if s.LastOrder.Sign() > 0 {
		last = p.c.amt(s.LastOrder, true)
	}
	if s.LargestOrder.Sign() > 0 {
		top = p.c.amt(s.LargestOrder, true)
	}
	if p.c.Privacy {
		last, top = "•••", "•••"
	}
	out := []string{fit(p.c.Styles.Muted.Render("  ↑ largest resting · last "+last+" · max today "+top), w)}
	switch {
	case s.Breaches == 1:
		out = append(out, fit(p.c.Styles.Warn.Render("  1 approved breach today"), w))
	case s.Breaches > 1:
		out = append(out, fit(p.c.Styles.Warn.Render(fmt.Sprintf("  %d approved breaches today", s.Breaches)), w))
	}
	return out
}
