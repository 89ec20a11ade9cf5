package tui

import (
	"cockpit/readmodel"

	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/redact"
	"cockpit/live/termsafe"
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
	Kind      string // INJECTION, DENIED, CANCELLED, STALE, REJECT, ERROR, HALT, REVIEW, FLATTEN
	Source    string
	Text      string
	Untrusted bool
}

const maxAlerts = 500

// alertLog keeps the newest alerts, each with an id, and the dedupe of repeating ones.
type alertLog struct {
	list []Alert
	seq  uint64
	seen map[string]time.Time
}

func (l *alertLog) add(a Alert, now time.Time) {
	if a.Time.IsZero() {
		a.Time = now
	}
	l.seq++
	a.ID = fmt.Sprintf("al%d", l.seq)
	l.list = append(l.list, a)
	if len(l.list) > maxAlerts {
		l.list = l.list[len(l.list)-maxAlerts:]
	}
}

// once adds an alert at most once per window for a key (stale data repeats otherwise).
func (l *alertLog) once(key string, window time.Duration, a Alert, now time.Time) {
	if t, ok := l.seen[key]; ok && now.Sub(t) < window {
		return
	}
	if l.seen == nil {
		l.seen = map[string]time.Time{}
	}
	l.seen[key] = now
	l.add(a, now)
}

func (d *Data) alert(a Alert) { d.Alerts.add(a, d.c.Now()) }

func (d *Data) once(key string, window time.Duration, a Alert) {
	d.Alerts.once(key, window, a, d.c.Now())
}

// onSnapshot takes a new snapshot: series samples, stale-data alerts.
func (d *Data) onSnapshot(s readmodel.Snapshot) {
	prev := d.Snap.State
	d.Snap, d.Ready = s, true
	d.noteStateChange(prev, s.State, s.HaltReason)
	d.Gross = s.Gross()
	d.Series.sample(s, d.Gross)
	d.fleetAlert(s)
	d.trailAlerts(s)
	for _, w := range s.Warnings {
		d.once("warn:"+w, 5*time.Minute, Alert{Level: levelWarn, Kind: "HALT", Source: "sentinels", Text: w})
	}
	for _, f := range s.Faults {
		d.once("fault:"+f, 5*time.Minute, Alert{Level: levelCrit, Kind: "DATA", Source: s.Broker, Text: f})
	}
	if s.BrokerErr != "" {
		d.once("broker", 30*time.Second, Alert{Level: levelCrit, Kind: "STALE", Source: s.Broker, Text: "broker unreadable: " + s.BrokerErr})
	}
	maxAge := 5 * time.Second
	if s.Mandate != nil && s.Mandate.Controls.MaxQuoteAgeMs != nil {
		maxAge = time.Duration(*s.Mandate.Controls.MaxQuoteAgeMs) * time.Millisecond
	}
	for _, sym := range slices.Sorted(maps.Keys(s.Quotes)) {
		q := s.Quotes[sym]
		if a := s.Taken.Sub(q.Time); !q.Time.IsZero() && a > maxAge {
			d.once("stale:"+sym, time.Minute, Alert{Level: levelWarn, Kind: "STALE", Source: sym,
				Text: fmt.Sprintf("quote %s old (limit %s)", age(a), maxAge)})
		}
	}
}

// onEngine folds an engine event into the screen state; events of an older generation (an
// earlier engine run) are dropped.
func (d *Data) onEngine(msg engineMsg) (refresh bool) {
	switch g := msg.generation(); {
	case g < d.gen:
		return false
	case g > d.gen:
		d.gen, d.Agent = g, agentStatus{}
	}
	switch m := msg.(type) {
	case TurnMsg:
		if m.Started {
			d.Agent.turn, d.Agent.last = m.Turn, "thinking"
		} else {
			d.Agent.last = m.Message
		}
	case ToolCallMsg:
		d.onToolCall(m)
	case OrderUpdateMsg:
		return d.onOrderUpdate(m.Update)
	case ReviewMsg:
		return d.onReview(m)
	case HaltMsg:
		return d.onHalt(m.State)
	case ErrorMsg:
		d.alert(Alert{Level: levelCrit, Kind: "ERROR", Source: m.Agent, Text: m.Message})
	case NoteMsg:
		d.Agent.last = "said: " + untrusted(m.Message, 60)
	}
	return false
}

// onReview raises a waiting review and re-reads the queue on every review event.
func (d *Data) onReview(m ReviewMsg) (refresh bool) {
	it := m.Item
	if it != nil && m.Kind == engine.EvReviewOutcome {
		d.onReviewOutcome(it)
	}
	return true
}

func (d *Data) onToolCall(ev ToolCallMsg) {
	if r := ev.Result; r != nil {
		d.Agent.last = ev.Tool + " " + string(r.Status)
		if r.Code == engine.ReasonReviewPending { // the order waits; the agent goes on
			d.Agent.last = ev.Tool + " waits for review " + termsafe.Text(r.ApprovalID)
		}
	}
}

func (d *Data) onOrderUpdate(u *live.OrderUpdate) (refresh bool) {
	if u == nil {
		return false
	}
	if u.FillQty.Sign() > 0 {
		d.Series.fill(u.Order.Symbol, u.Order.Side, u.FillPx, u.Time)
	}
	if u.Order.Status == live.StatusRejected {
		d.alert(Alert{Level: levelCrit, Kind: "REJECT", Source: u.Order.Symbol, Text: "order " + u.Order.ID + " rejected"})
	}
	if d.c.Now().Sub(d.lastRefresh) < 300*time.Millisecond {
		return false
	}
	d.lastRefresh = d.c.Now()
	return true
}

// onHalt shows a halt at once (the watcher saw the sentinel) and re-reads the rest.
func (d *Data) onHalt(h *halt.State) (refresh bool) {
	if h == nil || (h.Broker != d.Snap.Broker && d.Snap.Broker != "") {
		return false
	}
	prev := d.Snap.State
	switch {
	case h.Halted:
		d.Snap.State, d.Snap.Paused = live.Halted, true
	case h.ReduceOnly:
		d.Snap.State = live.ReduceOnly
	default:
		d.Snap.State = live.Active
	}
	d.noteStateChange(prev, d.Snap.State, h.Cause)
	return true
}

// onReviewOutcome says what an approved order did: sent, or why the approval did not go
// through (then also as a critical alert, which stays on screen).
func (d *Data) onReviewOutcome(it *live.ReviewItem) {
	if d.outcomeShown == nil {
		d.outcomeShown = map[string]bool{}
	}
	d.outcomeShown[it.ID] = true
	d.say("review " + it.ID + ": " + it.Outcome)
	if !it.Went() {
		d.alert(Alert{Level: levelCrit, Kind: "REVIEW", Source: it.ID, Text: it.Outcome})
	}
}

// onActionDone shows an operator action's result (the root then re-reads the state).
func (d *Data) onActionDone(a ActionDoneMsg) {
	if a.Err != nil && errors.Is(a.Err, halt.ErrNotDurable) { // the sentinel is in force all the same
		d.alert(Alert{Level: levelCrit, Kind: "DISK", Source: "operator " + a.What.String(),
			Text: "in force, but not known to be on disk (a crash may lose it): " + a.Err.Error()})
		a.Err = nil
	}
	if a.Err != nil {
		d.say(fmt.Sprintf("%s %s FAILED: %v", a.What, a.ID, a.Err))
		d.alert(Alert{Level: levelCrit, Kind: "ERROR", Source: "operator " + a.What.String(), Text: a.Err.Error()})
		return
	}
	switch a.What {
	case ActHalt:
		d.Snap.State, d.Snap.Paused = live.Halted, true
		d.sayState("HALTED everything: live/HALT is written, "+d.haltFollows(), live.Halted)
	case ActHaltBroker:
		d.Snap.State, d.Snap.Paused = live.Halted, true
		d.sayState("HALTED "+d.Snap.Broker+": its HALT file is written, "+d.haltFollows(), live.Halted)
	case ActResume:
		d.Snap.State = live.Active
		d.sayState("resumed: trading is ACTIVE; "+d.whoTrades(), live.Active)
	case ActExport:
		d.say("audit exported to " + a.Info)
	case ActApprove: // not "done": the gate runs the order again, and its outcome follows
		if !d.outcomeShown[a.ID] {
			d.say("approve " + a.ID + ": approved; the gate checks the order again before it goes")
		}
	default:
		msg := a.What.String() + " " + a.ID + ": done"
		if a.Info != "" {
			msg = a.What.String() + ": " + a.Info
		}
		d.say(msg)
	}
}

// haltFollows says what a written HALT sets going: the halt action here, or, on a screen
// attached to a root another program trades, that program's own gate (nothing is cancelled
// from this screen).
func (d *Data) haltFollows() string {
	if d.Snap.Attached != "" {
		return "its own runner stops placing orders; nothing is cancelled from this screen (no broker access)"
	}
	return "resting orders are being cancelled, the agent is paused"
}

// whoTrades says who places orders once the account trades again: the agent of this process,
// the owner's, the attached program's, or nobody (a supervised owner that is gone).
func (d *Data) whoTrades() string {
	switch s := &d.Snap; {
	case s.Attached != "":
		return "its own runner may trade again"
	case s.Supervising != "" && s.OwnerGone:
		return "no process trades on it now (the owner is gone)"
	case s.Supervising != "":
		return "the owner's agent trades again"
	}
	return "the agent trades again"
}

// trailAlerts raises the alerts the audit trail raised since the last snapshot: halts,
// denials, rejections, reviews, scanner findings, flattens. Every window of the account reads
// them from the trail, so each shows the same ones, and none is lost to a window that was not
// following when it happened.
func (d *Data) trailAlerts(s readmodel.Snapshot) {
	for _, a := range s.Alerts {
		if a.Seq <= d.alertSeq {
			continue
		}
		d.alertSeq = a.Seq
		text := a.Text
		if a.Kind == "REVIEW" {
			for i := range s.Reviews {
				if it := &s.Reviews[i]; it.ID == a.Ref {
					text = reviewLine(it, d.c.Privacy)
				}
			}
		}
		d.alert(Alert{Time: a.Time, Level: a.Level, Kind: a.Kind, Source: a.Source, Text: redact.Secrets(text), Untrusted: a.Untrusted})
	}
}
