package gate

import (
	"context"

	"cockpit/live"
	"cockpit/live/counter"
)

// flattenLock takes the broker's submit lock before a flatten reads anything, waiting as an
// operator's order does for a submission already under way: an order locked just before the
// HALT is then at the broker before the flatten reads open orders and positions, and any
// later one meets the halt under the lock. A lock that cannot be had in time does not stop
// the halt action: it goes on unlocked, as before (nil).
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
