package main

import (
	"context"
	"fmt"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/redact"
	"cockpit/session"
)

// runtime is a verb's session.Runtime and the App it serves.
type runtime struct {
	*session.Runtime
	app *App
}

// env is what the session package takes from the App.
func (a *App) env() session.Env {
	return session.Env{Now: a.Now, Getenv: a.Getenv, Stderr: a.Stderr, AllowLive: a.allowLive}
}

// openRuntime opens the runtime root: config, cockpit.db and cockpit.log.
func (a *App) openRuntime(home string) (*runtime, error) {
	root, err := a.root(home)
	if err != nil {
		return nil, err
	}
	rt, err := session.OpenRuntime(a.env(), root)
	if err != nil {
		return nil, err
	}
	return &runtime{Runtime: rt, app: a}, nil
}

func (rt *runtime) close() { rt.Close() }

// gate returns the runtime's gate (session.Runtime.Gate) for a verb: no watcher or latch of
// its own (the sentinels are read on every order); a configured fleet's count is days.
func (rt *runtime) gate(days live.DayReserver) *gate.Gate {
	return rt.Gate(session.GateOptions{Days: days})
}

// operatorAction audits something the operator did from the command line (DV8).
func (rt *runtime) operatorAction(kind, outcome, broker, summary string, detail any) error {
	return rt.record(live.AuditRecord{Kind: kind, Outcome: outcome, Broker: broker, Intent: summary, Detail: detail})
}

// record audits r as the operator's, from the command line.
func (rt *runtime) record(r live.AuditRecord) error {
	r.Time, r.Actor = rt.app.Now(), live.Operator(operatorName(), "cli")
	if r.Tool == "" {
		r.Tool = "cli"
	}
	err := rt.Audit.Record(context.Background(), r)
	if err != nil {
		rt.Log.Error("audit write failed", "kind", r.Kind, "err", err)
	}
	return err
}

// openBroker opens a broker for a verb. The paper account is exclusive to one process at a
// time (its state is loaded from, and saved to, the store).
func (rt *runtime) openBroker(key string) (live.Broker, func(), error) {
	release, err := rt.OwnAccount(key)
	if err != nil {
		return nil, nil, err
	}
	return rt.OpenOwnedBroker(key, release)
}

// followFills records the fills broker b reports (a flatten's closing orders) until the
// returned stop, which waits for those already delivered; one that cannot be recorded is said.
func (rt *runtime) followFills(b live.Broker, key string) (stop func()) {
	return rt.FollowFills(b, key, "cli", func(err error) {
		fmt.Fprintf(rt.app.Stderr, "cockpit: warning: a fill at %s is not in the audit trail: %s\n", key, redact.Secrets(err.Error()))
	})
}

// Names the verbs share with the session package.
var (
	operatorName     = session.OperatorName
	sentinelRecord   = session.SentinelRecord
	lockPaper        = session.LockPaper
	sentinelWarnings = session.SentinelWarnings
)
