package toolbroker

import (
	"context"
	"strings"
	"sync"
	"time"

	"cockpit/internal/fanout"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// DefaultFillPoll is how often a subscribed broker re-reads its open orders for fills.
const DefaultFillPoll = 2 * time.Second

// A tool-shaped broker does not stream, so its fills are seen where its replies show an
// order's filled quantity: the order tool's reply, the rows of the orders tool, and the
// profile's order tool (one order by id) for an order that left the open list. Every reply
// that shows an order's filled quantity grown since it was last seen becomes an OrderUpdate
// for the increase; the audit trail counts each order's recorded quantity, so an update seen
// again (after a restart) is recorded once (live.NextFill).
//
// An order first seen finished (filled before this process saw it open, and not placed by
// it) is remembered without an update: its fills happened at a time no reply says, and an
// orders tool that lists old orders would otherwise put days of history in today's trail.

// watch is what a Broker knows of the orders its replies showed.
type watch struct {
	mu      sync.Mutex
	subs    []chan live.OrderUpdate
	seen    map[string]live.Order // by broker order id
	polling bool
	seq     uint64
}

// observe compares an order a reply showed with what was known of it and publishes the fill
// (and any change of status). ours marks an order this process placed.
func (t *Broker) observe(o live.Order, ours bool) {
	if o.ID == "" {
		return
	}
	w := &t.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]live.Order{}
	}
	prev, known := w.seen[o.ID]
	if known {
		o = merged(o, prev)
	}
	w.seen[o.ID] = o
	if !known && !ours && !o.Status.Open() {
		return // finished before this process saw it
	}
	u := live.OrderUpdate{Order: o, Time: t.now()}
	if d := o.FilledQty.Sub(prev.FilledQty); d.Sign() > 0 {
		u.FillQty, u.FillPx = d, increasePrice(o, prev, d)
	} else if known && o.Status == prev.Status {
		return // nothing new
	}
	w.seq++
	u.Sequence = w.seq
	for _, ch := range w.subs {
		select {
		case ch <- u:
		default:
		}
	}
}

// merged fills in what a later reply left out (symbol, side, client id) from the earlier one.
func merged(o, prev live.Order) live.Order {
	if o.Symbol == "" {
		o.Symbol = prev.Symbol
	}
	if o.Side == "" {
		o.Side = prev.Side
	}
	if o.ClientOrderID == "" {
		o.ClientOrderID = prev.ClientOrderID
	}
	if o.FilledQty.Cmp(prev.FilledQty) < 0 { // a stale reply: keep the most the order has filled
		o.FilledQty, o.AvgFillPrice = prev.FilledQty, prev.AvgFillPrice
	}
	return o
}

// increasePrice is the price of the d the order filled since prev: what its average fill
// price leaves for it (zero when the reply carries no average).
func increasePrice(o, prev live.Order, d money.Amount) money.Amount {
	if o.AvgFillPrice.Sign() <= 0 {
		return money.Zero
	}
	n := o.FilledQty.Mul(o.AvgFillPrice).Sub(prev.FilledQty.Mul(prev.AvgFillPrice))
	if n.Sign() <= 0 {
		return money.Zero
	}
	return n.Div(d)
}

// openIDs lists the orders last seen open.
func (t *Broker) openIDs() []string {
	t.watch.mu.Lock()
	defer t.watch.mu.Unlock()
	var ids []string
	for id, o := range t.watch.seen {
		if o.Status.Open() {
			ids = append(ids, id)
		}
	}
	return ids
}

// Subscribe implements live.Broker: the order updates its replies show. The first subscriber
// starts a poll of the open orders (every PollEvery, while one is open) that lives as long as
// that subscriber's ctx.
func (t *Broker) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	w := &t.watch
	ch := fanout.Subscribe(ctx, &w.mu, &w.subs, 1024)
	w.mu.Lock()
	start := !w.polling
	w.polling = true
	w.mu.Unlock()
	if start {
		go t.poll(ctx)
	}
	return ch
}

// poll reads the open orders at once (orders resting from before a restart) and then every
// PollEvery while an order is open, and asks the order tool about each that left the list.
func (t *Broker) poll(ctx context.Context) {
	defer func() {
		t.watch.mu.Lock()
		t.watch.polling = false
		t.watch.mu.Unlock()
	}()
	every := t.PollEvery
	if every <= 0 {
		every = DefaultFillPoll
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for first := true; ; first = false {
		if ids := t.openIDs(); first || len(ids) > 0 {
			t.pollOnce(ctx, ids)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// pollOnce reads the open orders (which observes them) and the orders of ids that are no
// longer among them.
func (t *Broker) pollOnce(ctx context.Context, ids []string) {
	open, err := t.OpenOrders(ctx)
	if err != nil {
		return // the next tick tries again
	}
	listed := map[string]bool{}
	for _, o := range open {
		listed[o.ID] = true
	}
	for _, id := range ids {
		if !listed[id] {
			t.readOrder(ctx, id)
		}
	}
}

// readOrder asks the profile's order tool about one order; without one, an order that left
// the open list is finished as far as cockpit can tell, its last fills unknown.
func (t *Broker) readOrder(ctx context.Context, id string) {
	if t.Profile.OrderTool == "" {
		t.watch.mu.Lock()
		if o, ok := t.watch.seen[id]; ok {
			o.Status = live.StatusCancelled
			t.watch.seen[id] = o
		}
		t.watch.mu.Unlock()
		return
	}
	arg := t.Profile.OrderToolArg
	if arg == "" {
		arg = "order_id"
	}
	reply, err := t.read(ctx, t.Profile.OrderTool, jsonv.ObjectOf(arg, id))
	if err != nil {
		return
	}
	if row, ok := reply.(*jsonv.Object); ok {
		if o, ok := orderRow(row); ok {
			t.observe(o, false)
		}
	}
}

// orderRow reads an order from a reply row: its id, symbol, side, status, filled quantity and
// average fill price; false without an id.
func orderRow(row *jsonv.Object) (live.Order, bool) {
	id := ""
	for _, k := range []string{"order_id", "id", "broker_order_id"} {
		if s, ok := fieldString(row, k); ok && s != "" {
			id = s
			break
		}
	}
	if id == "" {
		return live.Order{}, false
	}
	sym, _ := fieldString(row, "symbol")
	side, _ := fieldString(row, "side")
	cid, _ := fieldString(row, "client_order_id")
	status, _ := fieldString(row, "status")
	o := live.Order{ID: id, ClientOrderID: cid, Symbol: sym, Side: orderSide(side), Status: orderStatus(status)}
	if f := amount(row, "filled_qty", "filled_quantity", "cumulative_quantity"); f != nil && f.Sign() > 0 {
		o.FilledQty = *f
	}
	if p := amount(row, "filled_avg_price", "average_fill_price", "average_price", "avg_fill_price"); p != nil && p.Sign() > 0 {
		o.AvgFillPrice = *p
	}
	return o, true
}

// orderSide reads a side as buy or sell ("BUY", "OrderSide.SELL"); "" otherwise.
func orderSide(s string) string {
	s = strings.ToLower(s)
	switch {
	case strings.HasSuffix(s, live.Buy):
		return live.Buy
	case strings.HasSuffix(s, live.Sell):
		return live.Sell
	}
	return ""
}

// orderStatus maps a broker's status word onto cockpit's (open unless it says otherwise).
func orderStatus(s string) live.OrderStatus {
	switch strings.ToLower(s) {
	case "filled":
		return live.StatusFilled
	case "partially_filled", "partial", "partially filled":
		return live.StatusPartial
	case "cancelled", "canceled", "expired", "done_for_day", "replaced":
		return live.StatusCancelled
	case "rejected", "failed":
		return live.StatusRejected
	}
	return live.StatusAccepted
}
