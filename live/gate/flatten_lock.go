package gate

import (
	"context"
	"strings"

	"cockpit/live"
	"cockpit/live/counter"
)

// flattenLock takes the broker's submit lock once a flatten has sent its first cancels,
// waiting as an operator's order does for a submission already under way: an order locked
// just before the HALT is then at the broker before the flatten reads the open orders again
// (cancelLate) and the positions it closes, and any later one meets the halt under the lock.
// The first cancels never wait for it. A lock that cannot be had in time does not stop the
// halt action: it goes on unlocked, as before (nil).
func (g *Gate) flattenLock(ctx context.Context, broker string) *counter.SubmitLock {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return nil
	}
	l, err := g.lockPatiently(ctx, key)
	if err != nil {
		return nil
	}
	return l
}

// cancelLate re-reads the open orders under the lock and cancels those that came to rest
// after the first read (an order in flight when the flatten began). Orders of the first read
// are left alone, cancelled or not: a failed cancel is never retried.
func (g *Gate) cancelLate(ctx context.Context, b live.Broker, key string, first []live.Order, opts FlattenOptions, rep *FlattenReport, progress func(FlattenProgress)) {
	seen := make(map[string]bool, len(first))
	for _, o := range first {
		seen[strings.TrimSpace(o.ID)] = true
	}
	now, err := b.OpenOrders(ctx)
	if err != nil {
		return // the verification re-reads and reports what still rests
	}
	var late []live.Order
	for _, o := range now {
		if id := strings.TrimSpace(o.ID); id != "" && !seen[id] {
			late = append(late, o)
		}
	}
	if len(late) > 0 {
		g.cancelAll(ctx, b, key, late, opts, rep, progress)
	}
}
