package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// History is a past of settled orders for SeedHistory.
type History struct {
	Broker string
	Orders int       // settled orders
	Before time.Time // the last of them was placed a minute before this, each one a minute before the next
	Paper  bool      // also the paper account's rows of the orders (filled), as its Store keeps them
	// Reviews is how many resolved review items the history holds (one breach per 20 orders
	// when zero).
	Reviews int
}

// SeedHistory writes the rows of h's settled orders in one transaction, as if the order path
// had placed them: each a journal row (accepted), its audit events (the tool call and the
// order, chained like every event), and with Paper the paper account's order row (filled,
// ids H0000001…, apart from the broker's own P ids). Benchmarks build a long history with it
// in seconds instead of placing each order; nothing else calls it.
func (db *DB) SeedHistory(ctx context.Context, h History) error {
	if h.Reviews == 0 {
		h.Reviews = h.Orders / 20
	}
	const batch = 10_000
	for done := 0; done < h.Orders; done += batch {
		n := min(batch, h.Orders-done)
		if err := db.tx(ctx, func(tx *sql.Tx) error { return db.seedOrders(ctx, tx, h, done, n) }); err != nil {
			return fmt.Errorf("seed history: %w", err)
		}
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		for i := range h.Reviews {
			at := h.Before.Add(-time.Duration(i+1) * 20 * time.Minute).UnixNano()
			if _, err := tx.ExecContext(ctx, `INSERT INTO approvals (id, broker, order_json, digest, why, limit_name, created_at,
				deadline, state, resolved_by, resolved_at) VALUES (?, ?, '{}', 'seed', 'breach', 'max_order_notional_usd', ?, ?, 'denied', 'seed', ?)`,
				fmt.Sprintf("ap_seed_%07d", i), h.Broker, at, at, at); err != nil {
				return err
			}
		}
		return nil
	})
}

// seedOrders writes orders [from, from+n) of h in tx.
func (db *DB) seedOrders(ctx context.Context, tx *sql.Tx, h History, from, n int) error {
	evs := make([]Event, 0, 2*n)
	notional := money.FromInt(100)
	for i := from; i < from+n; i++ {
		at := h.Before.Add(-time.Duration(h.Orders-i) * time.Minute)
		cid, id := fmt.Sprintf("ck_seed_%07d", i), fmt.Sprintf("H%07d", i+1)
		qty := money.MustParse("0.5")
		req := live.OrderRequest{ClientOrderID: cid, Symbol: "AAPL", Side: live.Buy, Type: live.Market, Notional: &notional}
		body, err := json.Marshal(req)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, journalInsert, cid, h.Broker, string(live.ActorAgent), "seed", "seed", string(body),
			string(live.JournalSubmitting), at.UnixNano(), at.UnixNano(), 0); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, journalFinish, string(live.JournalAccepted), id, "", at.UnixNano(), cid); err != nil {
			return err
		}
		evs = append(evs, EventFromRecord(live.AuditRecord{Time: at, Actor: live.Agent("seed", "seed"), Kind: live.KindToolCall,
			Outcome: live.OutcomeAccepted, Broker: h.Broker, Tool: "get_quote", Intent: "quote AAPL"}))
		evs = append(evs, EventFromRecord(live.AuditRecord{Time: at, Actor: live.Agent("seed", "seed"), Kind: live.KindOrderPlaced,
			Outcome: live.OutcomeAccepted, Broker: h.Broker, Tool: "place_order", OrderID: id, ClientOrderID: cid,
			Intent: "buy $100 AAPL (equity)", Notional: &notional}))
		if !h.Paper {
			continue
		}
		px := money.FromInt(200)
		o := live.Order{ID: id, ClientOrderID: cid, Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: &qty, Notional: &notional,
			FilledQty: qty, AvgFillPrice: px, Status: live.StatusFilled, CreatedAt: at, UpdatedAt: at}
		data, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, paperOrderUpsert, h.Broker, id, cid, 0, string(data)); err != nil {
			return err
		}
	}
	_, err := db.insertEvents(ctx, tx, evs)
	return err
}
