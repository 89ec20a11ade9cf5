package alpaca

import (
	"context"
	"time"

	sdk "github.com/alpacahq/alpaca-trade-api-go/v3/alpaca"

	"cockpit/internal/fanout"
	"cockpit/live"
	"cockpit/live/money"
)

// Subscribe implements live.Broker: order updates from Alpaca's trade-updates stream (SSE).
// The first subscriber starts the stream, which lives as long as that subscriber's ctx; it
// reconnects with exponential backoff, resubscribes from the last event it saw, and after
// every gap reconciles the orders it tracks by client order id (a fill missed in the gap
// arrives as one update for the difference, at the order's average fill price).
func (b *Broker) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	ch := fanout.Subscribe(ctx, &b.mu, &b.subs, 1024)
	b.mu.Lock()
	start := !b.stream
	b.stream = true
	b.mu.Unlock()
	if start {
		go b.runStream(ctx)
	}
	return ch
}

// runStream keeps the trade-updates stream open until ctx ends.
func (b *Broker) runStream(ctx context.Context) {
	defer func() {
		b.mu.Lock()
		b.stream = false
		b.mu.Unlock()
	}()
	wait := b.cfg.StreamBackoff
	var last time.Time
	for {
		// The stream's own HTTP client is the SDK's (no timeout: the stream is long-lived);
		// every option is still explicit, and OAuth from the environment was refused in New.
		c := sdk.NewClient(sdk.ClientOpts{APIKey: b.cfg.KeyID, APISecret: b.cfg.Secret, BaseURL: b.cfg.BaseURL,
			RetryLimit: -1, RetryDelay: time.Millisecond})
		req := sdk.StreamTradeUpdatesRequest{}
		if !last.IsZero() {
			req.Since = last.Add(time.Nanosecond)
		}
		err := c.StreamTradeUpdates(ctx, func(tu sdk.TradeUpdate) {
			wait = b.cfg.StreamBackoff // a message arrived: the link is good again
			if tu.At.After(last) {
				last = tu.At
			}
			b.onTradeUpdate(tu)
		}, req)
		if ctx.Err() != nil {
			return
		}
		b.cfg.Log.Warn("alpaca trade-updates stream dropped; reconnecting", "broker", b.cfg.Key, "error", errText(err), "wait", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, b.cfg.StreamBackoffMax)
		b.reconcile(ctx)
	}
}

func errText(err error) string {
	if err == nil {
		return "end of stream"
	}
	return err.Error()
}

// onTradeUpdate publishes one event of the stream; a fill already counted (a replay after a
// reconnect, or one a reconciliation reported) is not counted twice.
func (b *Broker) onTradeUpdate(tu sdk.TradeUpdate) {
	o, err := order(&tu.Order)
	if err != nil {
		b.cfg.Log.Warn("alpaca trade update unreadable", "broker", b.cfg.Key, "error", err.Error())
		return
	}
	// Looking up what was known and recording what is known now is one step under b.mu, so a
	// fill learnt from the order's POST reply and from the stream is published once.
	b.mu.Lock()
	prev, seen := b.known(o.ClientOrderID)
	var qty, px money.Amount
	if (tu.Event == "fill" || tu.Event == "partial_fill") && tu.Qty != nil && tu.Price != nil {
		if !seen || o.FilledQty.Cmp(prev.FilledQty) > 0 {
			q, err1 := dec(*tu.Qty)
			p, err2 := dec(*tu.Price)
			if err1 == nil && err2 == nil {
				qty, px = q, p
			}
		} else if o.Status == prev.Status {
			b.mu.Unlock()
			return // a replayed fill, or one the POST reply already reported
		}
	}
	b.trackLocked(o)
	b.mu.Unlock()
	b.publish(o, qty, px, tu.At)
}

// known is what the connector last knew of an order, open or finished. Callers hold b.mu.
func (b *Broker) known(cid string) (live.Order, bool) {
	if o, ok := b.tracked[cid]; ok {
		return o, true
	}
	o, ok := b.finished[cid]
	return o, ok
}

// placed records an order from its POST reply and publishes the fill the reply already
// shows (a market order can come back filled before its stream event): whoever learns of a
// fill first reports it, once.
func (b *Broker) placed(o live.Order) {
	b.mu.Lock()
	prev, seen := b.known(o.ClientOrderID)
	b.trackLocked(o)
	b.mu.Unlock()
	before := money.Zero
	if seen {
		before = prev.FilledQty
	}
	if d := o.FilledQty.Sub(before); d.Sign() > 0 {
		b.publish(o, d, o.AvgFillPrice, o.UpdatedAt)
	}
}

// reconcile re-reads every tracked order after a gap in the stream and publishes what
// changed; open orders it did not know are tracked from now on.
func (b *Broker) reconcile(ctx context.Context) {
	b.mu.Lock()
	before := make(map[string]live.Order, len(b.tracked))
	for k, v := range b.tracked {
		before[k] = v
	}
	b.mu.Unlock()
	open, err := b.OpenOrders(ctx)
	if err != nil {
		b.cfg.Log.Warn("alpaca reconcile: open orders", "broker", b.cfg.Key, "error", err.Error())
		return
	}
	now := map[string]live.Order{}
	for _, o := range open {
		now[o.ClientOrderID] = o
	}
	for cid := range before {
		if _, ok := now[cid]; ok {
			continue
		}
		o, err := b.OrderByClientID(ctx, cid)
		if err != nil {
			b.cfg.Log.Warn("alpaca reconcile: order", "broker", b.cfg.Key, "client_order_id", cid, "error", err.Error())
			continue
		}
		now[cid] = o
	}
	for cid, o := range now {
		prev, seen := before[cid]
		b.track(o)
		if seen && o.Status == prev.Status && o.FilledQty.Cmp(prev.FilledQty) == 0 {
			continue
		}
		var qty, px money.Amount
		if d := o.FilledQty.Sub(prev.FilledQty); d.Sign() > 0 {
			qty, px = d, o.AvgFillPrice
		}
		b.publish(o, qty, px, b.cfg.Now())
	}
}

// track remembers an open order by client order id and forgets a finished one.
func (b *Broker) track(o live.Order) {
	if o.ClientOrderID == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trackLocked(o)
}

// trackLocked is track for callers that hold b.mu.
func (b *Broker) trackLocked(o live.Order) {
	if o.ClientOrderID == "" {
		return
	}
	if o.Status.Open() {
		b.tracked[o.ClientOrderID] = o
	} else {
		delete(b.tracked, o.ClientOrderID)
		b.finished[o.ClientOrderID] = o
	}
}

// publish fans an update out without blocking; a full subscriber misses it.
func (b *Broker) publish(o live.Order, qty, px money.Amount, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	u := live.OrderUpdate{Order: o, FillQty: qty, FillPx: px, Time: at, Sequence: b.seq}
	for _, ch := range b.subs {
		select {
		case ch <- u:
		default:
		}
	}
}
