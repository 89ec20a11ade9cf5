package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cockpit/config"
	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/tui"
)

// DialFleet connects root to the configured fleet (nil, nil when none is configured). The
// connection retries in the background: a fleet that is down is unhealthy, not an error.
func DialFleet(root live.Root, cfg config.Config, getenv func(string) string, log *slog.Logger) (*fleet.Fleet, error) {
	fc := cfg.Fleet
	if !fc.Enabled() {
		return nil, nil
	}
	inst, err := fleet.InstanceID(root.Dir())
	if err != nil {
		return nil, fmt.Errorf("fleet instance id: %w", err)
	}
	o := fleet.Options{URL: fc.URL, Creds: fc.Creds, CA: fc.CA, Cert: fc.Cert, Key: fc.Key, Host: fc.HostName(),
		Instance: inst, Replicas: max(fc.Replicas, 1), Log: log,
		Audit: fleet.AuditRetention{MaxAge: fc.AuditMaxAge.Duration, MaxBytes: fc.AuditMaxBytes}}
	if fc.TokenEnv != "" {
		if o.Token = getenv(fc.TokenEnv); o.Token == "" {
			return nil, fmt.Errorf("config: fleet.token_env = %q: the variable is empty", fc.TokenEnv)
		}
	} else if fc.Creds == "" && fleet.LoopbackURL(fc.URL) { // `fleet serve` on this machine: its token file
		tok, err := fleet.ReadToken(root.Dir())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("fleet token: %w", err)
		}
		o.Token = tok
	}
	return fleet.Connect(o)
}

// fleetLink is a session's part in a fleet: the shared day count (the gate's Days), the halt
// mirror, the heartbeat and the audit stream.
type fleetLink struct {
	f      *fleet.Fleet
	days   *fleet.Days
	mirror *fleet.Mirror
	sink   *fleet.AuditSink

	mu   sync.Mutex
	last string // the last audit event, for the heartbeat
}

// openFleet joins the fleet when one is configured: the runtime's audit sink also feeds the
// fleet's stream. Called before the gate is built.
func (s *Session) openFleet() error {
	rt := s.rt
	f, err := DialFleet(rt.Root, rt.Config, rt.Getenv, rt.Log)
	if err != nil || f == nil {
		return err
	}
	s.closers = append(s.closers, f.Close)
	l := &fleetLink{f: f, days: &fleet.Days{F: f}}
	l.sink = &fleet.AuditSink{Next: &lastKind{next: rt.Audit, l: l}, F: f}
	rt.Audit = l.sink
	l.mirror = &fleet.Mirror{F: f, Root: rt.Root, Now: rt.Now, OnRemote: s.fleetHaltRecord,
		LocalOnly: fleet.LocalAuthors} // on_quit and audit-failure halts, a failed watcher: this host's own
	s.fleet = l
	return nil
}

// lastKind remembers the last audit event for the heartbeat.
type lastKind struct {
	next live.AuditSink
	l    *fleetLink
}

func (k *lastKind) Record(ctx context.Context, r live.AuditRecord) error {
	err := k.next.Record(ctx, r)
	if err == nil {
		k.l.mu.Lock()
		k.l.last = r.Kind
		k.l.mu.Unlock()
	}
	return err
}

// ProbeAudit passes the gate's probe on (live.AuditProber).
func (k *lastKind) ProbeAudit(ctx context.Context) error {
	if p, ok := k.next.(live.AuditProber); ok {
		return p.ProbeAudit(ctx)
	}
	return nil
}

// onSentinel is the halt watcher's hook: a local HALT change goes to the fleet; a change the
// fleet mirror wrote is audited by fleetHaltRecord, not as an outside change.
func (s *Session) onSentinel(c halt.SentinelChange) {
	if s.fleet != nil && s.fleet.mirror.Local(c) {
		return
	}
	s.sentries.observe(c)
}

// fleetHaltRecord audits a halt or resume mirrored from another host.
func (s *Session) fleetHaltRecord(e fleet.HaltEvent) {
	kind, outcome, verb := live.KindHaltTripped, live.OutcomeBlocked, "HALT"
	if !e.Halted {
		kind, outcome, verb = live.KindHaltCleared, live.OutcomeAccepted, "resume"
	}
	broker := e.Scope.Broker
	if e.Scope.Global {
		broker = ""
	}
	text := fmt.Sprintf("fleet %s (%s) from host %s by %s", verb, e.Scope, e.Host, e.By)
	if e.Reason != "" {
		text += ": " + e.Reason
	}
	rec := live.AuditRecord{Time: s.rt.Now(), Actor: live.System("fleet", s.id), Kind: kind, Outcome: outcome, Broker: broker,
		Reason: "fleet", Intent: strings.TrimSpace(text),
		Detail: jsonv.ObjectOf("host", e.Host, "by", e.By, "reason", e.Reason, "scope", e.Scope.String(), "at", e.At.UTC().Format(time.RFC3339Nano))}
	if err := s.rt.Audit.Record(context.Background(), rec); err != nil {
		s.rt.Log.Error("audit write failed", "kind", kind, "err", err)
	}
	if s.watcher != nil {
		s.watcher.Recheck()
	}
}

// run starts the fleet's loops in the session's wait group (nil: no fleet).
func (l *fleetLink) run(ctx context.Context, start func(func()), s *Session) {
	if l == nil {
		return
	}
	start(func() { l.mirror.Run(ctx) })
	start(func() { l.sink.Run(ctx) })
	start(func() { l.f.Heartbeat(ctx, 2*time.Second, func() fleet.Beat { return l.beat(s) }) })
}

// beat is this host's heartbeat.
func (l *fleetLink) beat(s *Session) fleet.Beat {
	now := s.rt.Now()
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	orders, err := s.rt.DB.AcceptedOrders(ctx, s.key, now) // this host's own (the counter file holds the fleet's)
	if err != nil {
		orders = -1
	}
	return fleet.Beat{State: string(halt.StateOf(s.rt.Root, s.key)), Broker: s.key, Orders: orders, LastEvent: last, At: now}
}

// view is the fleet as the screen shows it (nil: no fleet).
func (l *fleetLink) view(ctx context.Context, now time.Time) *tui.FleetView {
	if l == nil {
		return nil
	}
	ok, why := l.f.Health()
	v := &tui.FleetView{Host: l.f.Host(), OK: ok, Why: why}
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if !ok {
		return v
	}
	hosts, err := l.f.Hosts(ctx)
	if err != nil {
		v.OK, v.Why = false, err.Error()
		return v
	}
	for _, h := range hosts {
		v.Hosts = append(v.Hosts, tui.FleetHost{Name: h.Host, State: h.State, Broker: h.Broker, Orders: h.Orders,
			LastEvent: h.LastEvent, Lag: h.Lag(now)})
	}
	return v
}
