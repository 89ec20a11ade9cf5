package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
)

// statusBar is the top line: mode, trading state, mandate, broker, data age, orders today,
// the HALT file, the agent and the clock. Unknown or stale values show as such, never ✓.
func (m *Model) statusBar(w int) string {
	st, s := m.c.Styles, &m.data.Snap
	halted := m.data.State() == live.Halted
	badge := st.Paper.Render(" PAPER ")
	if s.Live {
		badge = st.LiveBadge.Render(" LIVE ")
	}
	// Segments in display order with a priority each (lower is dropped last when narrow).
	type seg struct {
		text string
		prio int
	}
	segs := []seg{{badge + " " + m.stateBadge(), 0}, {m.mandateSeg(), 3}, {m.brokerSeg(), 2}, {m.dataSeg(), 4},
		{m.ordersSeg(), 1}, {m.haltFileSeg(), 1}}
	if s.Agent != "" {
		a := fmt.Sprintf("agent %s", s.Agent)
		if m.data.Agent.turn > 0 {
			a += fmt.Sprintf(" t%d", m.data.Agent.turn)
		}
		if s.Paused || halted {
			a += " PAUSED"
		}
		segs = append(segs, seg{a, 5})
	}
	clock := m.now().UTC().Format("15:04:05") + " UTC"
	join := func(maxPrio int) string {
		var parts []string
		for _, sg := range segs {
			if sg.prio <= maxPrio {
				parts = append(parts, sg.text)
			}
		}
		return strings.Join(parts, " │ ")
	}
	line := join(0)
	for p := 5; p >= 0; p-- {
		if l := join(p); ansi.StringWidth(l)+len(clock)+2 <= w {
			line = l
			break
		}
	}
	line = fit(line, max(0, w-len(clock)-1)) + " " + clock
	if halted {
		return st.HaltBar.Render(fit(ansi.Strip(line), w))
	}
	return fit(line, w)
}

// haltBanner is the second line while halted: why, since when, what rests, how to resume.
func (m *Model) haltBanner(w int) string {
	if m.data.State() != live.Halted {
		return ""
	}
	why := m.data.Snap.HaltReason
	if why == "" {
		why = "HALT sentinel present"
	}
	n := len(m.data.Snap.Orders)
	text := fmt.Sprintf(" HALTED — %s — %d resting — agent paused — U resume · X flatten", untrusted(why, 70), n)
	return m.c.Styles.HaltBar.Render(fit(text, w))
}

func (m *Model) stateBadge() string {
	st := m.c.Styles
	switch m.data.State() {
	case live.Halted:
		return st.Halted.Render(" ■ HALTED ")
	case live.ReduceOnly:
		return st.Reduce.Render(" ◐ REDUCE-ONLY ")
	case live.Active:
		return st.Active.Render("● ACTIVE")
	}
	return st.Muted.Render("? UNKNOWN")
}

func (m *Model) mandateSeg() string {
	s := &m.data.Snap
	if s.Mandate == nil {
		switch {
		case s.MandateState == live.MandateTampered:
			return m.c.Styles.Critical.Render("mandate TAMPERED (orders denied)")
		case s.MandateState == live.MandateUnverified:
			return m.c.Styles.Critical.Render("mandate UNVERIFIED (orders denied)")
		case s.MandateErr != "":
			return m.c.Styles.Critical.Render("mandate INVALID")
		}
		return m.c.Styles.Critical.Render("mandate NONE (orders denied)")
	}
	id := s.Mandate.MandateID
	if len(id) > 14 {
		id = id[:14] + "…"
	}
	left := s.Expires.Sub(m.now())
	if s.Expires.IsZero() || left <= 0 {
		return m.c.Styles.Critical.Render(id + " EXPIRED")
	}
	return fmt.Sprintf("%s ⏱ %s", id, age(left))
}

// stale reports whether the last snapshot is too old to trust.
func (m *Model) stale() bool {
	return !m.data.Ready || m.now().Sub(m.data.Snap.Taken) > 5*time.Second
}

func (m *Model) brokerSeg() string {
	st, s := m.c.Styles, &m.data.Snap
	switch {
	case !m.data.Ready:
		return st.Muted.Render("broker ? connecting")
	case s.BrokerErr != "":
		return st.Critical.Render("broker " + s.Broker + " ✖ ERROR")
	case m.data.stale():
		return st.Muted.Render(fmt.Sprintf("broker %s ? STALE %s", s.Broker, age(m.now().Sub(s.Taken))))
	}
	return fmt.Sprintf("broker %s %s %dms", s.Broker, st.Profit.Render("✓"), s.Latency.Milliseconds())
}

func (m *Model) dataSeg() string {
	st, s := m.c.Styles, &m.data.Snap
	var newest time.Time
	for _, q := range s.Quotes {
		if q.Time.After(newest) {
			newest = q.Time
		}
	}
	if !m.data.Ready || newest.IsZero() {
		return st.Muted.Render("data ? none")
	}
	a := m.now().Sub(newest)
	if a > 5*time.Second {
		return st.Warn.Render(fmt.Sprintf("data ? STALE %s", age(a)))
	}
	return fmt.Sprintf("data %s %.1fs", st.Profit.Render("✓"), a.Seconds())
}

func (m *Model) ordersSeg() string {
	s := &m.data.Snap
	if s.Mandate == nil {
		return fmt.Sprintf("orders %d/—", s.OrdersToday)
	}
	max := s.Mandate.HardCaps.MaxTradesPerDay
	text := fmt.Sprintf("orders %d/%d", s.OrdersToday, max)
	switch pct := percent(float64(s.OrdersToday), float64(max)); {
	case pct >= 100:
		return m.c.Styles.Critical.Render(text + " USED UP")
	case pct >= 90:
		return m.c.Styles.Critical.Render(text)
	case pct >= 70:
		return m.c.Styles.Warn.Render(text)
	}
	return text
}

func (m *Model) haltFileSeg() string {
	st, s := m.c.Styles, &m.data.Snap
	switch {
	case !s.HaltFileOK && m.data.Ready:
		return st.Critical.Render("HALT file: ERROR")
	case m.data.State() == live.Halted:
		return st.Critical.Render("HALT file: PRESENT")
	case !m.data.Ready:
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

// footer is the short help of the focused pane, or a flash message, or the frozen marker.
func (m *Model) footer(w int) string {
	st := m.c.Styles
	if m.data.Flash != "" && m.now().Sub(m.data.FlashAt) < 5*time.Second {
		return fit(" "+st.Warn.Render(m.data.Flash), w)
	}
	k := m.c.Keys
	items := [][2]string{{"?", "help"}, {"/", "filter"}, {"tab", "pane"}}
	switch m.focus {
	case paneApprovals:
		items = append(items, [2]string{"a/d/D", "approve/deny/all"}, [2]string{"enter", "details"})
	case paneOrders:
		items = append(items, [2]string{"c/C", "cancel/all"})
	case panePositions:
		items = append(items, [2]string{"x", "close"})
	case paneAudit:
		items = append(items, [2]string{"L", "full log"})
	}
	items = append(items, [2]string{"f", "freeze"}, [2]string{k.Halt.Help().Key, "HALT"}, [2]string{"X", "flatten"},
		[2]string{"U", "resume"}, [2]string{"q", "quit"})
	var parts []string
	for _, it := range items {
		parts = append(parts, st.Key.Render(it[0])+" "+st.Muted.Render(it[1]))
	}
	line := " " + strings.Join(parts, "  ")
	if m.data.Frozen != nil {
		line = st.Warn.Render(" FROZEN ") + line
	}
	return fit(line, w)
}
