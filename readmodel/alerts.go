package readmodel

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/store"
)

// Alert levels, lowest first.
const (
	AlertInfo = iota
	AlertWarn
	AlertCrit
)

// TrailAlert is an alert the audit trail raises: the same in every window of the account (the
// owner's screen, a supervisor, SSH), and not lost to a window that was not following when it
// happened. Seq orders and identifies it.
type TrailAlert struct {
	Seq       int64
	Time      time.Time
	Level     int
	Kind      string // HALT, DENIED, REJECT, ERROR, CANCELLED, REVIEW, INJECTION, FLATTEN, FLEET, NOTIFY
	Source    string
	Text      string
	Ref       string // the review item of a REVIEW alert
	Untrusted bool   // Text quotes outside content (a scanner's match)
}

// keptAlerts is how many trail alerts a snapshot carries (the newest).
const keptAlerts = 200

// alertPage is how many events one read of the trail takes for alerts; a snapshot reads on
// until it has caught up.
const alertPage = 500

// trailAlerts are the alerts read so far and the last event read for them.
type trailAlerts struct {
	list []TrailAlert
	seq  int64
}

// alerts reads the events appended since the last call (the newest alertPage on the first)
// and returns the newest trail alerts, oldest first. Its cost follows what was appended.
func (r *Reader) alerts(ctx context.Context, last int64) []TrailAlert {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := &r.alertsSeen
	if a.seq == 0 && last > alertPage {
		a.seq = last - alertPage
	}
	for a.seq < last {
		evs, err := r.DB.Events(ctx, store.Filter{AfterSeq: a.seq, Ascending: true, Limit: alertPage})
		if err != nil || len(evs) == 0 {
			break
		}
		for _, e := range evs {
			a.list = append(a.list, alertsOf(e)...)
			a.seq = e.Seq
		}
	}
	if n := len(a.list); n > keptAlerts {
		a.list = append([]TrailAlert(nil), a.list[n-keptAlerts:]...)
	}
	return a.list
}

// payload is the part of an event's payload alerts read.
type payload struct {
	Error    string `json:"error"`
	Decision struct {
		Decision string `json:"decision"`
	} `json:"decision"`
	Detail struct {
		Warnings []struct {
			RuleID   string `json:"rule_id"`
			Severity string `json:"severity"`
			Match    string `json:"match"`
		} `json:"security_warnings"`
	} `json:"detail"`
}

// alertsOf is what one audit event raises (nil for most).
func alertsOf(e store.Event) []TrailAlert {
	a := TrailAlert{Seq: e.Seq, Time: e.Time, Source: e.ActorKind + ":" + e.ActorID}
	var p payload
	if e.Type == live.KindBreach || strings.Contains(e.Payload, `"error"`) || strings.Contains(e.Payload, "security_warnings") {
		_ = json.Unmarshal([]byte(e.Payload), &p)
	}
	why := func() string {
		if p.Error == "" {
			return e.Reason
		}
		return e.Reason + ": " + p.Error
	}
	switch {
	case e.Type == live.KindHaltTripped:
		a.Level, a.Kind, a.Text = AlertCrit, "HALT", e.Summary
	case e.Type == live.KindApprovalRequested:
		a.Level, a.Kind, a.Text, a.Ref, a.Source = AlertWarn, "REVIEW", e.Summary, e.ApprovalID, e.ApprovalID
	case e.Reason == string(live.ReasonCancelled): // cut off at stop or quit: not refused
		a.Level, a.Kind, a.Text = AlertInfo, "CANCELLED", "cancelled: "+p.Error
	case e.Type == live.KindOrderRejected && e.Outcome == live.OutcomeRejected, e.Type == live.KindOrderPlaced && e.Outcome == live.OutcomeRejected:
		a.Level, a.Kind, a.Text = AlertCrit, "REJECT", why()
	case e.Type == live.KindBreach && p.Decision.Decision != string(live.DecisionDeny):
		return nil // a breach waiting for a human: its review raises the alert
	case e.Outcome == live.OutcomeBlocked && (e.Type == live.KindBreach || e.Type == live.KindOrderRejected || e.Type == live.KindToolCall):
		a.Level, a.Kind, a.Text = AlertWarn, "DENIED", why()
	case e.Outcome == live.OutcomeError && (e.Type == live.KindToolCall || strings.HasPrefix(e.Type, "order_")):
		a.Level, a.Kind, a.Text = AlertWarn, "ERROR", why()
	case e.Type == live.KindFlatten:
		a.Level, a.Kind, a.Text = AlertCrit, "FLATTEN", e.Summary
		if e.Outcome == live.OutcomeAccepted {
			a.Level = AlertInfo
		}
	case e.Type == "fleet_alert":
		a.Level, a.Kind, a.Text, a.Untrusted = AlertCrit, "FLEET", e.Summary, true
	case e.Type == "notification" && e.Outcome != live.OutcomeAccepted && e.Outcome != "sent":
		a.Level, a.Kind, a.Text = AlertWarn, "NOTIFY", e.Summary
	case len(p.Detail.Warnings) > 0:
		out := make([]TrailAlert, 0, len(p.Detail.Warnings))
		for _, w := range p.Detail.Warnings {
			out = append(out, TrailAlert{Seq: e.Seq, Time: e.Time, Level: AlertCrit, Kind: "INJECTION", Source: e.Tool,
				Text: w.Severity + " " + w.RuleID + ": " + w.Match, Untrusted: true})
		}
		return out
	default:
		return nil
	}
	if e.Tool != "" && a.Kind != "REVIEW" {
		a.Source += " " + e.Tool
	}
	return []TrailAlert{a}
}
