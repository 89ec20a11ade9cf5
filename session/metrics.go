package session

import (
	"context"
	"slices"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/metrics"
)

// openMetrics serves [metrics] (issue 31 item 1; nothing without metrics.listen): the gate
// tells each decision and its latency, an audit sink beside the others counts halts,
// findings, plugin disables and loss-limit crossings, the store times its appends, and every
// scrape reads the state from the session's read model. Nothing it does can hold an order:
// counters and histograms only, on the gate's path. Called in Open after openNotify.
func (s *Session) openMetrics() error {
	m := s.metrics
	if m == nil {
		return nil
	}
	rt := s.rt
	sinks := live.MultiSink{rt.Audit}
	if ms, ok := rt.Audit.(live.MultiSink); ok {
		sinks = slices.Clone(ms)
	}
	rt.Audit = append(sinks, metrics.Sink{M: m})
	s.gate.Audit, s.eng.Audit = rt.Audit, rt.Audit
	prev := s.gate.OnDecision
	s.gate.OnDecision = func(d gate.Decision) {
		if prev != nil {
			prev(d)
		}
		if !d.DryRun {
			m.Decision(s.key, d.Verdict, d.Reason, d.StartedAt, rt.Now())
		}
	}
	rt.DB.SetAppendObserver(m.AuditAppend)
	if err := m.Register(metrics.Collector{Read: s.metricsState}); err != nil {
		return err
	}
	srv, err := metrics.Serve(rt.Config.Metrics.Listen, m, rt.Log)
	if err != nil {
		rt.DB.SetAppendObserver(nil)
		return err
	}
	s.metricsAddr = srv.Addr()
	url := "http://" + srv.Addr() + "/metrics"
	rt.Log.Info("metrics served", "url", url)
	s.notes = append(s.notes, "Prometheus metrics at "+url)
	s.closers = append(s.closers, func() {
		if err := srv.Close(); err != nil {
			rt.Log.Warn("metrics server close", "err", err)
		}
		rt.DB.SetAppendObserver(nil)
	})
	return nil
}

// MetricsAddr is the address /metrics is served on ("" when off).
func (s *Session) MetricsAddr() string { return s.metricsAddr }

// SetSSHSessions sets where the metrics read the SSH screens open by role (serve-ssh).
func (s *Session) SetSSHSessions(fn func() map[string]int) {
	s.owner.mu.Lock()
	s.owner.sshRoles = fn
	s.owner.mu.Unlock()
}

// metricsState is the state one scrape exposes, read from the session's read model.
func (s *Session) metricsState(ctx context.Context) metrics.State {
	snap := s.reader.Snapshot(ctx)
	st := metrics.State{Broker: s.key, Halted: snap.HaltScopes(s.rt.Root), OrdersToday: snap.OrdersToday, CountUnknown: snap.CountErr != "",
		HasMandate: snap.Mandate != nil, Usage: snap.Usage(), ChainLength: snap.AuditTotal, BrokerLatency: snap.Latency,
		BrokerUp: snap.BrokerErr == ""}
	if snap.Mandate != nil {
		st.OrdersCap = snap.Mandate.HardCaps.MaxTradesPerDay
	}
	if len(snap.Loss) > 0 && snap.LossErr == "" {
		st.LossCrossed = map[string]bool{}
		for _, g := range snap.Loss {
			st.LossCrossed[g.Limit] = g.Crossed
		}
	}
	if hr, ok := s.broker.(live.HealthReporter); ok {
		if h := hr.Health(); !h.Checked.IsZero() && !h.Connected {
			st.BrokerUp = false
		}
	}
	if s.fleet != nil {
		st.Fleet = true
		st.FleetUp, _ = s.fleet.f.Health()
	}
	if counts, oldest, err := s.rt.DB.ApprovalCounts(ctx); err == nil {
		st.Reviews = map[string]int{}
		for state, n := range counts {
			st.Reviews[string(state)] = n
		}
		if !oldest.IsZero() {
			st.OldestPending = max(s.rt.Now().Sub(oldest), 0)
		}
	} else {
		s.rt.Log.Warn("metrics: review counts unreadable", "err", err)
	}
	s.owner.mu.Lock()
	clients, roles := s.owner.clients, s.owner.sshRoles
	s.owner.mu.Unlock()
	if clients != nil {
		st.MCPClients = len(clients())
	}
	if roles != nil {
		st.SSHSessions = roles()
	}
	return st
}

// timedDays is the fleet's day count with each reservation timed for the metrics; the rest
// of fleet.Days (its count, its sent legs) is promoted unchanged.
type timedDays struct {
	*fleet.Days
	m *metrics.Metrics
}

// The gate asks the fleet's count for these; the wrapper must keep them.
var (
	_ live.DayCounter  = timedDays{}
	_ live.SentCounter = timedDays{}
)

// Reserve implements live.DayReserver.
func (t timedDays) Reserve(ctx context.Context, broker, day string) (int, error) {
	start := time.Now()
	n, err := t.Days.Reserve(ctx, broker, day)
	t.m.Reservation(time.Since(start))
	return n, err
}
