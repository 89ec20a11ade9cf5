package store

import (
	"context"
	"time"

	"cockpit/engine"
	"cockpit/live/jsonv"
)

// RestoreSpend adds the LLM spending audited since `since` to costs (at start-up, so a restart
// mid-day does not reset the day's budget) and returns how many requests it counted.
func RestoreSpend(ctx context.Context, db *DB, costs *engine.CostBudget, since time.Time) (int, error) {
	n := 0
	var after int64
	for {
		evs, err := db.Events(ctx, Filter{Type: engine.KindLLMUsage, Since: since, AfterSeq: after, Ascending: true, Limit: 1000})
		if err != nil {
			return n, err
		}
		for _, e := range evs {
			after = e.Seq
			v, err := jsonv.ParseString(e.Payload, jsonv.Options{})
			if err != nil {
				continue
			}
			o, _ := v.(*jsonv.Object)
			if usd, ok := engine.SpendFromPayload(o); ok && usd.Sign() > 0 {
				costs.Record(e.Time, usd)
				n++
			}
		}
		if len(evs) < 1000 {
			return n, nil
		}
	}
}
