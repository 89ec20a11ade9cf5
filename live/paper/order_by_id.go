package paper

import (
	"context"

	"cockpit/live"
)

// OrderByID finds an order by the broker's id (the MCP paper server's get_order_by_id): an
// open one in memory, a settled one where it is kept (the Store, or memory without one).
func (b *Broker) OrderByID(_ context.Context, id string) (live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, found, err := b.orderByID(id)
	switch {
	case err != nil:
		return live.Order{}, err
	case !found:
		return live.Order{}, live.ErrOrderNotFound
	}
	return o, nil
}
