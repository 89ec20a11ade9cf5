package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cockpit/readmodel"

	"cockpit/config"
	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// DialFleet connects root to the configured fleet (nil, nil when none is configured). The
// host's credentials are [fleet] creds, else <root>/fleet.creds when it exists (what
// `fleet serve` makes for its own root and `fleet add-host` for the others); without them the
// host has no identity (its resumes are ignored by its peers). The connection retries in the
// background: a fleet that is down is unhealthy, not an error.
func DialFleet(root live.Root, cfg config.Config, getenv func(string) string, log *slog.Logger) (*fleet.Fleet, error) {
	return DialFleetAlerting(root, cfg, getenv, log, nil)
}

// DialFleetAlerting is DialFleet with a hook for what the fleet refuses (fleet.Alert).
func DialFleetAlerting(root live.Root, cfg config.Config, getenv func(string) string, log *slog.Logger, onAlert func(fleet.Alert)) (*fleet.Fleet, error) {
	fc := cfg.Fleet
	if !fc.Enabled() {
		return nil, nil
	}
	inst, err := fleet.InstanceID(root.Dir())
	if err != nil {
		return nil, fmt.Errorf("fleet instance id: %w", err)
	}
	o := fleet.Options{URL: fc.URL, CA: fc.CA, Cert: fc.Cert, Key: fc.Key, Host: fc.Host,
		Instance: inst, Replicas: max(fc.Replicas, 1), Log: log, OnAlert: onAlert,
		Audit: fleet.AuditRetention{MaxAge: fc.AuditMaxAge.Duration, MaxBytes: fc.AuditMaxBytes}}
	creds := fc.Creds
	if creds == "" {
		if p := filepath.Join(root.Dir(), fleet.CredsFile); fileExists(p) {
			creds = p
		}
	}
	if creds != "" {
		if o.Identity, err = fleet.LoadIdentity(creds); err != nil {
			return nil, fmt.Errorf("fleet creds: %w (config: fleet.creds)", err)
		}
	} else if o.Host == "" {
		o.Host = fc.HostName()
	}
	if fc.TokenEnv != "" {
		if o.Token = getenv(fc.TokenEnv); o.Token == "" {
			return nil, fmt.Errorf("config: fleet.token_env = %q: the variable is empty", fc.TokenEnv)
		}
	}
	return fleet.Connect(o)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// fleetLink is a session's part in a fleet: the shared day count (the gate's Days), the halt
// mirror, the heartbeat and the audit stream.
type fleetLink struct {
	f      *fleet.Fleet
	days   *fleet.Days
	mirror *fleet.Mirror
	sink   *fleet.AuditSink

	mu     sync.Mutex
	last   string   // the last audit event, for the heartbeat
	recent []string // the newest alerts, for the screen

	alerts chan fleet.Alert // refusals to audit (off the gate's path)
}

// maxRecentAlerts is how many fleet alerts the screen keeps.
const maxRecentAlerts = 8

// openFleet joins the fleet when one is configured: the runtime's audit sink also feeds the
// fleet's stream. Called before the gate is built.
func (s *Session) openFleet() error {
	rt := s.rt
	l := &fleetLink{alerts: make(chan fleet.Alert, 64)}
	f, err := DialFleetAlerting(rt.Root, rt.Config, rt.Getenv, rt.Log, l.alert)
	if err != nil || f == nil {
		return err
	}
	s.closers = append(s.closers, f.Close)
	l.f, l.days = f, &fleet.Days{F: f}
	s.closers = append(s.closers, func() { // before f.Close (closers run last first): leased slots go back
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := l.days.Close(ctx); err != nil && rt.Log != nil {
			rt.Log.Warn("fleet: leased day-count slots not given back (they stay counted today)", "err", err)
		}
	})
	l.sink = &fleet.AuditSink{Next: &lastKind{next: rt.Audit, l: l}, F: f, Trail: StoreTrail{DB: rt.DB}}
	rt.Audit = l.sink
	l.mirror = &fleet.Mirror{F: f, Root: rt.Root, Now: rt.Now, OnRemote: s.fleetHaltRecord,
		LocalOnly: fleet.LocalAuthors} // on_quit and audit-failure halts, a failed watcher: this host's own
	s.fleet = l
	return nil
}

// StoreTrail is the store's audit trail as the fleet publishes it (fleet.Trail).
type StoreTrail struct{ DB *store.DB }

// TrailAfter returns up to limit events after seq, oldest first, each with its chain hashes.
func (t StoreTrail) TrailAfter(ctx context.Context, seq int64, limit int) ([]fleet.TrailEvent, error) {
	evs, err := t.DB.Events(ctx, store.Filter{AfterSeq: seq, Ascending: true, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]fleet.TrailEvent, 0, len(evs))
	for _, e := range evs {
		data, err := jsonv.Marshal(EventJSON(e), jsonv.Compact) // the fields `audit show` prints
		if err != nil {
			return nil, err
		}
		out = append(out, fleet.TrailEvent{Seq: e.Seq, Prev: e.PrevHash, Hash: e.Hash, Event: data})
	}
	return out, nil
}

// RehashEvent recomputes a published event's chain hash as `audit verify` does (fleet.Rehash).
func RehashEvent(raw json.RawMessage) (int64, string, string, error) {
	e, err := EventFromJSON(raw)
	if err != nil {
		return 0, "", "", err
	}
	return e.Seq, e.PrevHash, store.HashEvent(e), nil
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
	if e.Unverified != "" {
		text = fmt.Sprintf("fleet %s (%s, UNVERIFIED: %s) claimed by host %s by %s", verb, e.Scope, e.Unverified, e.Host, e.By)
	}
	if e.Reason != "" {
		text += ": " + e.Reason
	}
	rec := live.AuditRecord{Time: s.rt.Now(), Actor: live.System("fleet", s.id), Kind: kind, Outcome: outcome, Broker: broker,
		Reason: "fleet", Intent: strings.TrimSpace(text),
		Detail: jsonv.ObjectOf("host", e.Host, "by", e.By, "reason", e.Reason, "scope", e.Scope.String(), "at", e.At.UTC().Format(time.RFC3339Nano), "verified", e.Unverified == "")}
	if err := s.rt.Audit.Record(context.Background(), rec); err != nil {
		s.rt.Log.Error("audit write failed", "kind", kind, "err", err)
	}
	if s.watcher != nil {
		s.watcher.Recheck()
	}
}

// AuditFleetAlert is the audit kind of something the fleet refused (fleet.Alert).
const AuditFleetAlert = "fleet_alert"

// alert queues a refusal for the audit and the screen; it never blocks the caller (the
// gate's reservation may be the one raising it).
func (l *fleetLink) alert(a fleet.Alert) {
	l.mu.Lock()
	l.recent = append(l.recent, a.Text)
	if len(l.recent) > maxRecentAlerts {
		l.recent = l.recent[len(l.recent)-maxRecentAlerts:]
	}
	l.mu.Unlock()
	select {
	case l.alerts <- a:
	default:
	}
}

// auditAlerts records each queued refusal until ctx ends.
func (l *fleetLink) auditAlerts(ctx context.Context, s *Session) {
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-l.alerts:
			rec := live.AuditRecord{Time: s.rt.Now(), Actor: live.System("fleet", s.id), Kind: AuditFleetAlert,
				Outcome: live.OutcomeBlocked, Reason: live.Reason(a.Kind), Intent: a.Text,
				Detail: jsonv.ObjectOf("host", a.Host, "subject", a.Subject, "at", a.At.UTC().Format(time.RFC3339Nano))}
			if err := s.rt.Audit.Record(context.Background(), rec); err != nil {
				s.rt.Log.Error("audit write failed", "kind", AuditFleetAlert, "err", err)
			}
		}
	}
}

// run starts the fleet's loops in the session's wait group (nil: no fleet).
func (l *fleetLink) run(ctx context.Context, start func(func()), s *Session) {
	if l == nil {
		return
	}
	start(func() { l.auditAlerts(ctx, s) })
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
func (l *fleetLink) view(ctx context.Context, now time.Time) *readmodel.FleetView {
	if l == nil {
		return nil
	}
	ok, why := l.f.Health()
	l.mu.Lock()
	v := &readmodel.FleetView{Host: l.f.Host(), OK: ok, Why: why, Alerts: append([]string(nil), l.recent...)}
	l.mu.Unlock()
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
		v.Hosts = append(v.Hosts, readmodel.FleetHost{Name: h.Host, State: h.State, Broker: h.Broker, Orders: h.Orders,
			LastEvent: h.LastEvent, Lag: h.Lag(now)})
	}
	return v
}
