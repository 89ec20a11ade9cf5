package session

import (
	"context"
	"slices"
	"strings"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/notify"
)

// openNotify starts the [notify] sinks (issue 29 item 4; nothing without any): the follower
// reads the bus (a review waiting, a halt), joins the audit sinks (a failed flatten, a
// disabled plugin) and hears the gate's in-memory halt; a poll watches the fleet and broker
// links. It only ever posts to the notifier's queues, so no order waits on a sink. Called in
// Open once the gate and the engine exist and before anything runs; Close drains the queues
// (bounded) before the store closes.
func (s *Session) openNotify() error {
	rt := s.rt
	label := s.key
	if rt.IsLive(s.key) {
		label += " [LIVE]"
	}
	n, err := notify.FromConfig(rt.Config.Notify, rt.Getenv, notify.Options{Audit: rt.Audit,
		Actor: live.System("notify", s.id), Broker: s.key, Log: rt.Log, Now: rt.Now})
	if err != nil || n == nil {
		return err
	}
	f := &notify.Follower{N: n, Label: label, HaltWhy: s.haltWhy}
	_, halted := s.Halted()
	f.Seen(s.key, halted) // where the session starts: a halt from here on is news
	// The follower is one more audit sink, beside the others (not around them: the gate
	// folds its probe into the store's write-ahead row only when it finds the store itself).
	sinks := live.MultiSink{rt.Audit}
	if m, ok := rt.Audit.(live.MultiSink); ok {
		sinks = slices.Clone(m)
	}
	rt.Audit = append(sinks, f)
	s.gate.Audit, s.eng.Audit = rt.Audit, rt.Audit
	if prev := s.gate.OnHalt; prev != nil {
		s.gate.OnHalt = func(h gate.AuditHalt) {
			prev(h)
			if !halt.IsGloballyHalted(rt.Root) { // else the watcher sees the HALT file and the bus says it
				f.AuditHalt(h)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	events := s.eng.Bus.Subscribe(ctx, 256)
	links := &notify.LinkWatch{F: f, Links: s.notifyLinks()}
	done := make(chan struct{}, 2)
	go func() { f.Follow(ctx, events); done <- struct{}{} }()
	go func() { links.Run(ctx); done <- struct{}{} }()
	s.notes = append(s.notes, "notifications go to "+strings.Join(n.Sinks(), ", ")+" (one-way: approving stays here, over SSH and in the CLI)")
	s.closers = append(s.closers, func() {
		cancel()
		<-done
		<-done
		n.Close()
	})
	return nil
}

// haltWhy says why the session's broker is halted, and the halt's reason as written.
func (s *Session) haltWhy() (line, reason string) {
	line, _ = s.Halted()
	if h, ok := s.gate.Latched(); ok {
		return line, string(h.Reason)
	}
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: s.key}} {
		if a, _ := halt.ReadSentinel(s.rt.Root, live.HaltSentinel, scope); a != nil {
			return line, a.Reason
		}
	}
	return line, ""
}

// notifyLinks are the links whose loss is news: the fleet's, and the broker's when its
// connector reports its health.
func (s *Session) notifyLinks() []notify.Link {
	var links []notify.Link
	if s.fleet != nil {
		f := s.fleet.f
		links = append(links, notify.Link{Event: notify.EvFleetDown, Name: "fleet", Check: func() (bool, bool, string) {
			ok, why := f.Health()
			return ok, true, why
		}})
	}
	if hr, ok := s.broker.(live.HealthReporter); ok {
		links = append(links, notify.Link{Event: notify.EvBrokerDown, Name: "broker " + s.key, Check: func() (bool, bool, string) {
			h := hr.Health()
			return h.Connected, !h.Checked.IsZero(), h.LastError
		}})
	}
	return links
}
