package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/session"
	"cockpit/store"
)

// figAudit: durable appends one by one; `audit verify` per million events; and the screen's
// page queries on a database of 1,000,000 events (100,000 with --quick).
func figAudit(c config) ([]Figure, error) {
	figs, err := appendRate(c)
	if err != nil {
		return nil, err
	}
	n := c.size(50_000, 1_000_000)
	path := filepath.Join(c.tmp, "audit-big", "cockpit.db")
	db, err := store.Open(path)
	if err != nil {
		return figs, err
	}
	defer db.Close()
	if err := fill(db, n); err != nil {
		return figs, err
	}
	ctx := context.Background()
	start := time.Now()
	rep, err := db.Verify(ctx, nil)
	took := time.Since(start)
	if err != nil || !rep.OK() || rep.Events != int64(n) {
		return figs, fmt.Errorf("verify: %d events, ok %v, %v", rep.Events, rep.OK(), err)
	}
	figs = append(figs, Figure{Name: "audit verify, per million events", Value: took.Seconds() * 1e6 / float64(n), Unit: "s",
		Note: fmt.Sprintf("measured on %d events", n)})
	q, err := pageQuery(db, n)
	return append(figs, q...), err
}

func appendRate(c config) ([]Figure, error) {
	dir := filepath.Join(c.tmp, "audit-append")
	db, err := store.Open(filepath.Join(dir, "cockpit.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetAnchor(filepath.Join(dir, store.AnchorFile))
	db.AnchorEvery = session.AnchorEvery
	ctx := context.Background()
	rec := live.AuditRecord{Actor: live.Agent("strategy", "bench"), Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted,
		Broker: "paper", Tool: "place_order", Intent: "buy $100 AAPL (equity)", Request: jsonv.ObjectOf("symbol", "AAPL", "notional", jsonv.Number("100"))}
	n := c.size(300, 5000)
	start := time.Now()
	for range n {
		if err := db.Record(ctx, rec); err != nil {
			return nil, err
		}
	}
	return []Figure{{Name: "audit append, durable, one by one", Value: float64(n) / time.Since(start).Seconds(), Unit: "events/s",
		Note: "anchored as a session anchors"}}, nil
}

// fill appends n events shaped like a session's, 20,000 to a transaction.
func fill(db *store.DB, n int) error {
	types := []string{live.KindOrderPlaced, live.KindBreach, live.KindOrderRejected, live.KindOrderCancelled, "scanner_finding"}
	reasons := []string{"", "max_order_notional_usd", "halted", "lock_busy", "no_quote"}
	start := time.Now().Add(-time.Duration(n) * 100 * time.Millisecond)
	for done := 0; done < n; done += 20_000 {
		evs := make([]store.Event, min(20_000, n-done))
		for i := range evs {
			k := done + i
			evs[i] = store.Event{Time: start.Add(time.Duration(k) * 100 * time.Millisecond), ActorKind: "agent", ActorID: "strategy",
				Type: types[k%len(types)], Outcome: "accepted", Reason: reasons[k%len(reasons)], Broker: "paper",
				OrderID: fmt.Sprintf("P%07d", k/3), Summary: fmt.Sprintf("buy $%d AAPL (equity)", 100+k%900),
				Payload: fmt.Sprintf(`{"intent":"buy $%d AAPL (equity)","request":{"notional":%d,"symbol":"AAPL"}}`, 100+k%900, 100+k%900)}
		}
		if _, err := db.AppendBatch(context.Background(), evs); err != nil {
			return err
		}
	}
	return nil
}

// pageQuery: the audit view's queries (newest page, deep page, by type, reason code, order
// id): the slowest one's median.
func pageQuery(db *store.DB, n int) ([]Figure, error) {
	ctx := context.Background()
	filters := map[string]store.Filter{
		"newest": {Limit: 50}, "deep": {Limit: 50, BeforeSeq: int64(n / 100)},
		"type": {Limit: 50, Type: live.KindBreach}, "reason": {Limit: 50, Reason: "halted", BeforeSeq: int64(n / 2)},
		"order": {Limit: 50, OrderID: fmt.Sprintf("P%07d", n/6)},
	}
	worst, which := 0.0, ""
	for name, f := range filters {
		var samples []time.Duration
		for range 50 {
			t0 := time.Now()
			evs, err := db.Events(ctx, f)
			samples = append(samples, time.Since(t0))
			if err != nil || len(evs) == 0 {
				return nil, fmt.Errorf("page %s: %d events, %v", name, len(evs), err)
			}
		}
		if p := pct(samples, 0.5); p > worst {
			worst, which = p, name
		}
	}
	return []Figure{{Name: fmt.Sprintf("screen page query, %d events, slowest filter p50", n), Value: worst / 1000, Unit: "ms", Note: which}}, nil
}
