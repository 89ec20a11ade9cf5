package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"cockpit/live"
	"cockpit/live/paper"
)

// migrationHooks run in a migration's transaction after its SQL, for what SQL cannot decide.
var migrationHooks = map[int]func(context.Context, *sql.Tx) error{
	8:  decodeReduceOnly,
	9:  splitPaperAccounts,
	10: func(ctx context.Context, tx *sql.Tx) error { return (&DB{}).rebuildFills(ctx, tx) }, // no prepared statements yet
}

// decodeReduceOnly finishes migration 0008's backfill as the day count decided before it: a
// row is left out of the count only when its request decodes as a live.OrderRequest with
// ReduceOnly set; one that does not decode counts (an unknown order is assumed to count).
// Clearing the flag fires the journal's count trigger, which adds the row back.
func decodeReduceOnly(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT client_order_id, request FROM order_journal WHERE reduce_only = 1`)
	if err != nil {
		return err
	}
	var counted []string
	for rows.Next() {
		var id, raw string
		if err := rows.Scan(&id, &raw); err != nil {
			rows.Close()
			return err
		}
		var req live.OrderRequest
		if json.Unmarshal([]byte(raw), &req) != nil || !req.ReduceOnly {
			counted = append(counted, id)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, id := range counted {
		if _, err := tx.ExecContext(ctx, `UPDATE order_journal SET reduce_only = 0 WHERE client_order_id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// splitPaperAccounts finishes migration 0009: each paper account saved whole becomes its
// header and a row per order and per position. An account that does not decode is left as it
// was: opening it then fails as it did before, saying the account is unreadable.
func splitPaperAccounts(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT broker, state FROM paper_accounts`)
	if err != nil {
		return err
	}
	whole := map[string]*paper.State{}
	for rows.Next() {
		var broker, state string
		if err := rows.Scan(&broker, &state); err != nil {
			rows.Close()
			return err
		}
		var st paper.State
		if json.Unmarshal([]byte(state), &st) == nil {
			whole[broker] = &st
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for broker, st := range whole {
		c, err := st.Whole()
		if err != nil {
			continue // left whole: unreadable, as before
		}
		exec := func(q string, args ...any) error { _, err := tx.ExecContext(ctx, q, args...); return err }
		if err := writePaperRows(exec, broker, c); err != nil {
			return fmt.Errorf("paper account %s: %w", broker, err)
		}
		if err := exec(`UPDATE paper_accounts SET state = ? WHERE broker = ?`, string(c.Header), broker); err != nil {
			return fmt.Errorf("paper account %s: %w", broker, err)
		}
	}
	return nil
}
