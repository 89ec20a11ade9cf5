package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/termsafe"
)

// statusBar is the top line and, while halted, the banner under it.
type statusBar struct{ c *Common }

// View is the top line: mode, trading state, mandate, broker, data age, orders today,
// the HALT file, the agent and the clock. Unknown or stale values show as such, never ✓.
func (b statusBar) View(w int) string {
	line, _ := b.compose(w)
	return line
}

// compose lays the top line out in w cells; short reports that the state had to be
// shortened (the pause reason then goes to the banner).
func (b statusBar) compose(w int) (line string, short bool) {
	st, s := b.c.Styles, &b.c.Data.Snap
	halted := b.c.Data.State() == live.Halted
	badge, shortBadge := st.Paper.Render(" PAPER "), st.Paper.Render(" PAPER ")
	if s.Live { // real money: spelled out, so it cannot be missed even without colour
		badge, shortBadge = st.LiveBadge.Render(" LIVE · REAL MONEY "), st.LiveBadge.Render(" LIVE ")
	}
	// Segments in display order with a priority each (lower is dropped last when narrow).
	type seg struct {
		text string
		prio int
	}
	brokerPrio := 2
	if s.OwnerGone { // a supervised owner with no heartbeat: said even on a narrow line
		brokerPrio = 0
	}
	segs := []seg{{badge + " " + b.stateBadge(false), 0}, {b.mandateSeg(), 3}, {b.brokerSeg(), brokerPrio}, {b.dataSeg(), 4},
		{b.ordersSeg(), 1}, {b.haltFileSeg(), 1}}
	if fs, prio := fleetSeg(b.c); fs != "" {
		segs = append(segs, seg{fs, prio})
	}
	if bs := blockedSeg(s); bs != "" {
		segs = append(segs[:1], append([]seg{{bs, 0}}, segs[1:]...)...)
	}
	if s.Agent != "" {
		a := fmt.Sprintf("agent %s", termsafe.Text(s.Agent))
		if b.c.Data.Agent.turn > 0 {
			a += fmt.Sprintf(" t%d", b.c.Data.Agent.turn)
		}
		if s.Paused || halted || s.PauseTill.After(b.c.Now()) {
			a += " PAUSED"
		}
		segs = append(segs, seg{a, 5})
	}
	clock := b.c.Now().UTC().Format("15:04:05") + " UTC"
	join := func(maxPrio int) string {
		var parts []string
		for _, sg := range segs {
			if sg.prio <= maxPrio {
				parts = append(parts, sg.text)
			}
		}
		return strings.Join(parts, " │ ")
	}
	fitted := false
	line = join(0)
	for p := 5; p >= 1 && !fitted; p-- {
		line = join(p)
		fitted = ansi.StringWidth(line)+len(clock)+2 <= w
	}
	if !fitted { // narrow: the short state keeps the orders and the HALT file on the line
		segs[0].text = shortBadge + " " + b.stateBadge(true)
		line = join(0)
		for p := 5; p >= 0; p-- {
			if l := join(p); ansi.StringWidth(l)+len(clock)+2 <= w {
				line = l
				break
			}
		}
	}
	line = fit(line, max(0, w-len(clock)-1)) + " " + clock
	if halted {
		return st.HaltBar.Render(fit(ansi.Strip(line), w)), !fitted
	}
	return fit(line, w), !fitted
}

// Banner is the second line while halted (or paused without room for why): why, since when, what rests, how to resume.
func (b statusBar) Banner(w int) string {
	if b.c.Data.State() != live.Halted {
		if p := b.pauseBanner(w); p != "" {
			return p
		}
		if sb := b.superviseBanner(w); sb != "" {
			return sb
		}
		return b.reviewBanner(w)
	}
	why := b.c.Data.Snap.HaltReason
	if why == "" {
		why = "HALT sentinel present"
	}
	n := len(b.c.Data.Snap.Orders)
	var acts []string
	if b.c.may("resume") {
		acts = append(acts, "U resume")
	}
	if b.c.may("flatten") {
		acts = append(acts, "X flatten")
	}
	text := fmt.Sprintf(" HALTED — %s — %d resting — agent paused", untrusted(why, 70), n)
	if len(acts) > 0 {
		text += " — " + strings.Join(acts, " · ")
	}
	if b.c.Data.Snap.Attached != "" { // no agent of ours and no broker access: say only what is true
		text = fmt.Sprintf(" ATTACHED · HALTED — %s — its runner refuses orders — U removes the HALT file", untrusted(why, 60))
	}
	return b.c.Styles.HaltBar.Render(fit(text, w))
}

// stateBadge is the one state shown: the trading state, and the agent's own state when it
// does not trade; short leaves the pause reason out (narrow screens).
func (b statusBar) stateBadge(short bool) string {
	st := b.c.Styles
	switch b.c.Data.State() {
	case live.Halted:
		return st.Halted.Render(" ■ HALTED ")
	case live.ReduceOnly:
		if agent := b.agentState(short); agent != "" {
			return st.Reduce.Render(" ◐ REDUCE-ONLY ") + " " + agent
		}
		return st.Reduce.Render(" ◐ REDUCE-ONLY ")
	case live.Active:
		if agent := b.agentState(short); agent != "" {
			return agent
		}
		return st.Active.Render("● ACTIVE")
	}
	return st.Muted.Render("? UNKNOWN")
}

// agentState is the agent's own state when it is not trading although trading is allowed:
// auto-paused (why, until when) or blocked on the operator's reviews; "" otherwise.
func (b statusBar) agentState(short bool) string {
	st, s := b.c.Styles, &b.c.Data.Snap
	if s.PauseTill.After(b.c.Now()) {
		why := s.PauseWhy
		if why == "" {
			why = "auto-pause"
		}
		until := s.PauseTill.UTC().Format("15:04:05")
		if short {
			return st.Warn.Render("⏸ PAUSED until " + until)
		}
		return st.Warn.Render(fmt.Sprintf("⏸ PAUSED (%s, until %s UTC)", untrusted(why, 60), until))
	}
	if n := len(s.Reviews); n > 0 {
		unit := "reviews"
		if n == 1 {
			unit = "review"
		}
		if short {
			return st.Warn.Render(fmt.Sprintf("⏳ WAITING (%d %s)", n, unit))
		}
		return st.Warn.Render(fmt.Sprintf("⏳ WAITING FOR YOU (%d %s)", n, unit))
	}
	return ""
}

func (b statusBar) mandateSeg() string {
	s := &b.c.Data.Snap
	if s.Mandate == nil {
		switch {
		case s.MandateState == live.MandateTampered:
			return b.c.Styles.Critical.Render("mandate TAMPERED (orders denied)")
		case s.MandateState == live.MandateUnverified:
			return b.c.Styles.Critical.Render("mandate UNVERIFIED (orders denied)")
		case s.MandateErr != "":
			return b.c.Styles.Critical.Render("mandate INVALID")
		}
		return b.c.Styles.Critical.Render("mandate NONE (orders denied)")
	}
	id := termsafe.Text(s.Mandate.MandateID)
	if r := []rune(id); len(r) > 14 {
		id = string(r[:14]) + "…"
	}
	left := s.Expires.Sub(b.c.Now())
	if s.Expires.IsZero() || left <= 0 {
		return b.c.Styles.Critical.Render(id + " EXPIRED")
	}
	return fmt.Sprintf("%s ⏱ %s", id, age(left))
}

func (b statusBar) brokerSeg() string {
	st, s := b.c.Styles, &b.c.Data.Snap
	switch {
	case !b.c.Data.Ready:
		return st.Muted.Render("broker ? connecting")
	case s.OwnerGone:
		return st.Critical.Render("broker " + s.Broker + " ✖ owner gone")
	case s.BrokerErr != "":
		return st.Critical.Render("broker " + s.Broker + " ✖ ERROR")
	case b.c.Data.stale():
		return st.Muted.Render(fmt.Sprintf("broker %s ? STALE %s", s.Broker, age(b.c.Now().Sub(s.Taken))))
	}
	return fmt.Sprintf("broker %s %s %dms", s.Broker, st.Profit.Render("✓"), s.Latency.Milliseconds())
}

func (b statusBar) dataSeg() string {
	st, s := b.c.Styles, &b.c.Data.Snap
	var newest time.Time
	for _, q := range s.Quotes {
		if q.Time.After(newest) {
			newest = q.Time
		}
	}
	if !b.c.Data.Ready || newest.IsZero() {
		return st.Muted.Render("data ? none")
	}
	a := b.c.Now().Sub(newest)
	if a > 5*time.Second {
		return st.Warn.Render(fmt.Sprintf("data ? STALE %s", age(a)))
	}
	return fmt.Sprintf("data %s %.1fs", st.Profit.Render("✓"), a.Seconds())
}

func (b statusBar) ordersSeg() string {
	s := &b.c.Data.Snap
	if s.Mandate == nil {
		return fmt.Sprintf("orders %d/—", s.OrdersToday)
	}
	max := s.Mandate.HardCaps.MaxTradesPerDay
	if s.CountErr != "" { // unknown, and the gate denies: never a number
		return b.c.Styles.Critical.Render(fmt.Sprintf("orders ?/%d UNREADABLE", max))
	}
	text := fmt.Sprintf("orders %d/%d", s.OrdersToday, max)
	if s.FleetOrders { // the gate counts the fleet's day: say so, and this host's share
		text = fmt.Sprintf("orders %d/%d fleet (here %d)", s.OrdersToday, max, s.HostOrders)
	}
	switch pct := percent(float64(s.OrdersToday), float64(max)); {
	case pct >= 100:
		return b.c.Styles.Critical.Render(text + " USED UP")
	case pct >= 90:
		return b.c.Styles.Critical.Render(text)
	case pct >= 70:
		return b.c.Styles.Warn.Render(text)
	}
	return text
}

func (b statusBar) haltFileSeg() string {
	st, s := b.c.Styles, &b.c.Data.Snap
	switch {
	case !s.HaltFileOK && b.c.Data.Ready:
		return st.Critical.Render("HALT file: ERROR")
	case b.c.Data.State() == live.Halted:
		return st.Critical.Render("HALT file: PRESENT")
	case !b.c.Data.Ready:
		return st.Muted.Render("HALT file: ?")
	}
	return "HALT file: absent"
}

func percent(used, limit float64) float64 {
	if limit <= 0 {
		if used > 0 {
			return 1000
		}
		return 0
	}
	return used / limit * 100
}

// pauseBanner carries the pause reason when the top line had no room for it.
func (b statusBar) pauseBanner(w int) string {
	s := &b.c.Data.Snap
	if !s.PauseTill.After(b.c.Now()) {
		return ""
	}
	if _, short := b.compose(w); !short {
		return ""
	}
	why := s.PauseWhy
	if why == "" {
		why = "auto-pause"
	}
	text := fmt.Sprintf(" PAUSED — %s — until %s UTC — H halt", untrusted(why, 60), s.PauseTill.UTC().Format("15:04:05"))
	return b.c.Styles.Warn.Render(fit(text, w))
}
