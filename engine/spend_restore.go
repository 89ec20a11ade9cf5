package engine

import (
	"context"
	"time"

	"cockpit/live/jsonv"
)

// EventReader calls fn for every audited event of one kind since a time, oldest first (the
// store's EachEvent).
type EventReader func(ctx context.Context, kind string, since time.Time, fn func(at time.Time, payload string)) error

// RestoreSpend adds the LLM spending audited since `since` to costs (at start-up, so a restart
// mid-day does not reset the day's budget) and returns how many requests it counted.
func RestoreSpend(ctx context.Context, events EventReader, costs *CostBudget, since time.Time) (int, error) {
	n := 0
	err := events(ctx, KindLLMUsage, since, func(at time.Time, payload string) {
		v, err := jsonv.ParseString(payload, jsonv.Options{})
		if err != nil {
			return
		}
		o, _ := v.(*jsonv.Object)
		if usd, ok := SpendFromPayload(o); ok && usd.Sign() > 0 {
			costs.Record(at, usd)
			n++
		}
	})
	return n, err
}
