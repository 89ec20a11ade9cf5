package tui

import (
	"fmt"
	"maps"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/money"
)

// Alert levels.
const (
	levelInfo = iota
	levelWarn
	levelCrit
)

// Alert is one line of the alerts pane: a scanner finding, a denial, stale data, a broker
// reject, an error. Text from outside (findings, agent words) is marked untrusted and always
// shown escaped.
type Alert struct {
	ID        string
	Time      time.Time
	Level     int
	Kind      string // INJECTION, DENIED, STALE, REJECT, ERROR, HALT, REVIEW, FLATTEN
	Source    string
	Text      string
	Untrusted bool
}

const maxAlerts = 500

func (m *Model) alert(a Alert) {
	if a.Time.IsZero() {
		a.Time = m.now()
	}
	m.seq++
	a.ID = fmt.Sprintf("al%d", m.seq)
	m.alerts = append(m.alerts, a)
	if len(m.alerts) > maxAlerts {
		m.alerts = m.alerts[len(m.alerts)-maxAlerts:]
	}
}

// once raises an alert at most once per window for a key (stale data repeats otherwise).
func (m *Model) once(key string, window time.Duration, a Alert) {
	if t, ok := m.seen[key]; ok && m.now().Sub(t) < window {
		return
	}
	m.seen[key] = m.now()
	m.alert(a)
}

// onSnapshot takes a new snapshot: series samples, stale-data alerts.
func (m *Model) onSnapshot(s Snapshot) {
	m.snap, m.ready = s, true
	m.gross = m.headroomGross(&s)
	m.series.sample(s, m.gross)
	for _, w := range s.Warnings {
		m.once("warn:"+w, 5*time.Minute, Alert{Level: levelWarn, Kind: "HALT", Source: "sentinels", Text: w})
	}
	if s.BrokerErr != "" {
		m.once("broker", 30*time.Second, Alert{Level: levelCrit, Kind: "STALE", Source: s.Broker, Text: "broker unreadable: " + s.BrokerErr})
	}
	maxAge := 5 * time.Second
	if s.Mandate != nil && s.Mandate.Controls.MaxQuoteAgeMs != nil {
		maxAge = time.Duration(*s.Mandate.Controls.MaxQuoteAgeMs) * time.Millisecond
	}
	for _, sym := range slices.Sorted(maps.Keys(s.Quotes)) {
		q := s.Quotes[sym]
		if a := s.Taken.Sub(q.Time); !q.Time.IsZero() && a > maxAge {
			m.once("stale:"+sym, time.Minute, Alert{Level: levelWarn, Kind: "STALE", Source: sym,
				Text: fmt.Sprintf("quote %s old (limit %s)", age(a), maxAge)})
		}
	}
}

// onEvent folds an engine event into the screen state; events of an older generation (an
// earlier engine run) are dropped.
func (m *Model) onEvent(ev engine.Event) tea.Cmd {
	switch {
	case ev.Gen < m.gen:
		return nil
	case ev.Gen > m.gen:
		m.gen, m.agent = ev.Gen, agentStatus{}
	}
	switch ev.Kind {
	case engine.EvTurnStarted:
		m.agent.turn, m.agent.last = ev.Turn, "thinking"
	case engine.EvTurnEnded:
		m.agent.last = ev.Message
	case engine.EvToolCall:
		m.onToolCall(ev)
	case engine.EvDecision:
		m.onDecision(ev.Decision)
	case engine.EvOrderUpdate:
		return m.onOrderUpdate(ev.Order)
	case engine.EvReviewCreated:
		if it := ev.Review; it != nil {
			m.alert(Alert{Level: levelWarn, Kind: "REVIEW", Source: it.ID, Text: reviewLine(it, m)})
		}
		return m.refresh()
	case engine.EvReviewResolved:
		return m.refresh()
	case engine.EvReviewOutcome:
		if it := ev.Review; it != nil {
			m.onReviewOutcome(it)
		}
		return m.refresh()
	case engine.EvHalt:
		return m.onHalt(ev.Halt)
	case engine.EvFlatten:
		if ev.Report != nil {
			m.alert(Alert{Level: flattenLevel(*ev.Report), Kind: "FLATTEN", Source: "halt action", Text: ev.Report.Summary()})
		}
	case engine.EvFinding:
		if f := ev.Finding; f != nil {
			m.alert(Alert{Level: levelCrit, Kind: "INJECTION", Source: ev.Tool, Untrusted: true,
				Text: fmt.Sprintf("%s %s: %s", f.Severity, f.RuleID, f.Match)})
		}
	case engine.EvError:
		m.alert(Alert{Level: levelCrit, Kind: "ERROR", Source: ev.Agent, Text: ev.Message})
	case engine.EvNote:
		m.agent.last = "said: " + untrusted(ev.Message, 60)
	}
	return nil
}

func (m *Model) onToolCall(ev engine.Event) {
	r := ev.Result
	if r == nil {
		return
	}
	m.agent.last = ev.Tool + " " + r.Status
	if r.OK() || r.Decision == "ask" {
		return
	}
	kind, lvl := "DENIED", levelWarn
	if r.Status == engine.StatusError || r.Status == engine.StatusRejected {
		kind = "ERROR"
		if r.Status == engine.StatusRejected {
			kind = "REJECT"
		}
	}
	m.alert(Alert{Level: lvl, Kind: kind, Source: ev.Agent + " " + ev.Tool, Text: live.RedactSecrets(r.Code + ": " + r.Detail)})
}

func (m *Model) onDecision(d *live.Decision) {
	if d == nil || d.Verdict != live.Allow || d.Outcome == live.OutcomeAccepted {
		return
	}
	m.alert(Alert{Level: levelCrit, Kind: "REJECT", Source: "broker", Text: d.Message()})
}

func (m *Model) onOrderUpdate(u *live.OrderUpdate) tea.Cmd {
	if u == nil {
		return nil
	}
	if u.FillQty.Sign() > 0 {
		m.series.fill(u.Order.Symbol, u.Order.Side, u.FillPx, u.Time)
	}
	if u.Order.Status == live.StatusRejected {
		m.alert(Alert{Level: levelCrit, Kind: "REJECT", Source: u.Order.Symbol, Text: "order " + u.Order.ID + " rejected"})
	}
	if m.now().Sub(m.lastRefresh) < 300*time.Millisecond {
		return nil
	}
	m.lastRefresh = m.now()
	return m.refresh()
}

// onHalt shows a halt at once (the watcher saw the sentinel) and re-reads the rest.
func (m *Model) onHalt(h *live.HaltState) tea.Cmd {
	if h == nil || (h.Broker != m.snap.Broker && m.snap.Broker != "") {
		return nil
	}
	switch {
	case h.Halted:
		if m.snap.State != live.Halted {
			m.alert(Alert{Level: levelCrit, Kind: "HALT", Source: h.Broker, Text: "trading halted (" + h.Cause + "); agent paused"})
		}
		m.snap.State, m.snap.Paused = live.Halted, true
	case h.ReduceOnly:
		m.snap.State = live.ReduceOnly
	default:
		m.snap.State = live.Active
	}
	return m.refresh()
}

// headroomGross is the gross exposure the gate would count: positions plus resting orders in
// their worst direction, valued at the snapshot's quotes.
func (m *Model) headroomGross(s *Snapshot) money.Amount {
	rows := make([]live.Exposure, len(s.Positions))
	for i, p := range s.Positions {
		rows[i] = live.Exposure{Symbol: p.Symbol, Net: p.MarketValue}
	}
	book := live.BookFromExposures(rows).WithOpenOrders(s.Orders, func(sym string) (money.Amount, error) {
		if q, ok := s.Quotes[sym]; ok {
			if p := q.ValuationPrice(live.Buy); p.Sign() > 0 {
				return p, nil
			}
		}
		return money.Zero, fmt.Errorf("no quote for %s", sym)
	})
	if book.Err != nil {
		// Unpriceable resting orders: show positions alone (the gate itself fails closed).
		return live.BookFromExposures(rows).Gross()
	}
	return book.Gross()
}
