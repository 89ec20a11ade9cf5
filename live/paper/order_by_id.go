package paper

import (
	"context"

	"cockpit/live"
)

// OrderByID finds an order by the broker's id (the MCP paper server's get_order_by_id).
func (b *Broker) OrderByID(_ context.Context, id string) (live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.st.Orders[id]
	if !ok {
		return live.Order{}, live.ErrOrderNotFound
	}
	return *o, nil
}
