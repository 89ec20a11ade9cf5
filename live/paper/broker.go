package paper

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// qtyStep is the smallest share fraction the paper broker trades (notional orders round down).
var qtyStep = money.MustParse("0.000001")

// Config configures a paper broker.
type Config struct {
	Key    string       // broker key (default "paper")
	Market MarketConfig // the simulated market
	Cash   money.Amount // starting cash (default 100000)
	Now    func() time.Time
	Faults *Faults // nil: no faults
}

// Broker is the paper broker. It implements live.Broker.
type Broker struct {
	key    string
	mkt    *Market
	now    func() time.Time
	faults *Faults

	mu        sync.Mutex
	cash      money.Amount
	positions map[string]*position
	orders    map[string]*live.Order
	byClient  map[string]string
	seq       int64
	updates   uint64
	subs      []chan live.OrderUpdate
}

type position struct {
	qty, avg, realized money.Amount
}

var _ live.Broker = (*Broker)(nil)

// New builds a paper broker and its market.
func New(cfg Config) (*Broker, error) {
	if cfg.Key == "" {
		cfg.Key = live.PaperBroker
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Cash.Sign() <= 0 {
		cfg.Cash = money.FromInt(100_000)
	}
	mkt, err := NewMarket(cfg.Market, cfg.Now())
	if err != nil {
		return nil, err
	}
	return &Broker{key: cfg.Key, mkt: mkt, now: cfg.Now, faults: cfg.Faults, cash: cfg.Cash,
		positions: map[string]*position{}, orders: map[string]*live.Order{}, byClient: map[string]string{}}, nil
}

// Name implements live.Broker.
func (b *Broker) Name() string { return b.key }

// Market returns the simulated market (for charts and the built-in strategy).
func (b *Broker) Market() *Market { return b.mkt }

// sync advances the market to now and fills resting orders it crossed. Callers hold b.mu.
func (b *Broker) sync() {
	b.mkt.AdvanceTo(b.now())
	b.matchResting()
}

// Advance moves the market to the clock and fills what crossed; Run calls it on a timer.
func (b *Broker) Advance() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
}

// Run advances the market every interval until ctx ends, so resting orders fill and prices
// move while nobody calls the broker.
func (b *Broker) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.Advance()
		}
	}
}

// Quote implements live.Broker.
func (b *Broker) Quote(ctx context.Context, symbol string) (live.Quote, error) {
	if err := b.faults.before(ctx, "quote"); err != nil {
		return live.Quote{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	t, ok := b.mkt.Tick(symbol)
	if !ok {
		return live.Quote{}, live.Rejected("unknown symbol " + symbol)
	}
	return live.Quote{Symbol: symbol, Bid: t.Bid, Ask: t.Ask, Last: t.Last, Time: t.Time}, nil
}

// Positions implements live.Broker.
func (b *Broker) Positions(ctx context.Context) ([]live.Position, error) {
	if err := b.faults.before(ctx, "positions"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	return b.positionsLocked(), nil
}

func (b *Broker) positionsLocked() []live.Position {
	out := make([]live.Position, 0, len(b.positions))
	for sym, p := range b.positions {
		if p.qty.IsZero() {
			continue
		}
		t, _ := b.mkt.Tick(sym)
		out = append(out, live.Position{Symbol: sym, Qty: p.qty, AvgPrice: p.avg,
			MarketValue: p.qty.Mul(t.Last), RealizedPnL: p.realized,
			UnrealizedPnL: t.Last.Sub(p.avg).Mul(p.qty)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Symbol < out[j].Symbol })
	return out
}

// Account implements live.Broker: equity is cash plus marked positions; buying power is cash
// (a cash account: no margin for buys).
func (b *Broker) Account(ctx context.Context) (live.Account, error) {
	if err := b.faults.before(ctx, "account"); err != nil {
		return live.Account{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	eq := b.cash
	for _, p := range b.positionsLocked() {
		eq = eq.Add(p.MarketValue)
	}
	return live.Account{Cash: b.cash, Equity: eq, BuyingPower: money.Max(money.Zero, b.cash)}, nil
}

// OpenOrders implements live.Broker.
func (b *Broker) OpenOrders(ctx context.Context) ([]live.Order, error) {
	if err := b.faults.before(ctx, "open_orders"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	var out []live.Order
	for _, o := range b.orders {
		if o.Status.Open() {
			out = append(out, *o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// PlaceOrder implements live.Broker. A resend with a known client order id returns the
// original order and changes nothing.
func (b *Broker) PlaceOrder(ctx context.Context, req live.OrderRequest) (live.Order, error) {
	fault := b.faults.next("place_order")
	if err := fault.pre(ctx); err != nil {
		return live.Order{}, err
	}
	b.mu.Lock()
	o, err := b.placeLocked(req)
	b.mu.Unlock()
	if err != nil {
		return o, err
	}
	if err := fault.post(); err != nil {
		return live.Order{}, err // the order exists; the reply was lost
	}
	return o, nil
}

func (b *Broker) placeLocked(req live.OrderRequest) (live.Order, error) {
	b.sync()
	if req.ClientOrderID != "" {
		if id, ok := b.byClient[req.ClientOrderID]; ok {
			return *b.orders[id], nil
		}
	}
	t, ok := b.mkt.Tick(req.Symbol)
	if !ok {
		return live.Order{}, live.Rejected("unknown symbol " + req.Symbol)
	}
	if req.Side != live.Buy && req.Side != live.Sell {
		return live.Order{}, live.Rejected("side must be buy or sell")
	}
	qty, err := b.quantity(req, t)
	if err != nil {
		return live.Order{}, err
	}
	if req.Type == live.Limit && (req.LimitPrice == nil || req.LimitPrice.Sign() <= 0) {
		return live.Order{}, live.Rejected("a limit order needs a positive limit price")
	}
	if req.ReduceOnly && !b.reduces(req.Symbol, req.Side, qty) {
		return live.Order{}, live.Rejected("reduce-only order would increase or flip the position")
	}
	b.seq++
	now := b.now()
	o := &live.Order{ID: fmt.Sprintf("P%06d", b.seq), ClientOrderID: req.ClientOrderID, Symbol: req.Symbol,
		Side: req.Side, Type: req.Type, Quantity: &qty, Notional: req.Notional, LimitPrice: req.LimitPrice,
		ReduceOnly: req.ReduceOnly, Status: live.StatusAccepted, CreatedAt: now, UpdatedAt: now}
	if o.Type == "" {
		o.Type = live.Market
	}
	if px, ok := marketable(o, t); ok {
		if err := b.affordable(o, qty, px); err != nil {
			return live.Order{}, err
		}
		b.register(o)
		b.fill(o, qty, px)
		return *o, nil
	}
	if o.Type == live.Market {
		return live.Order{}, live.Rejected("no liquidity")
	}
	b.register(o)
	b.publish(*o, money.Zero, money.Zero)
	return *o, nil
}

func (b *Broker) register(o *live.Order) {
	b.orders[o.ID] = o
	if o.ClientOrderID != "" {
		b.byClient[o.ClientOrderID] = o.ID
	}
}

// quantity resolves a quantity or a notional at the touch (rounded down to the share step).
func (b *Broker) quantity(req live.OrderRequest, t Tick) (money.Amount, error) {
	if req.Quantity != nil {
		if req.Quantity.Sign() <= 0 {
			return money.Zero, live.Rejected("quantity must be positive")
		}
		return *req.Quantity, nil
	}
	if req.Notional == nil || req.Notional.Sign() <= 0 {
		return money.Zero, live.Rejected("a quantity or a positive notional is required")
	}
	px := t.Ask
	if req.Side == live.Sell {
		px = t.Bid
	}
	q := req.Notional.Div(px).FloorToStep(qtyStep)
	if q.Sign() <= 0 {
		return money.Zero, live.Rejected("notional too small for one share step")
	}
	return q, nil
}

func (b *Broker) reduces(sym, side string, qty money.Amount) bool {
	held := money.Zero
	if p := b.positions[sym]; p != nil {
		held = p.qty
	}
	if side == live.Sell {
		return held.Sign() > 0 && qty.Cmp(held) <= 0
	}
	return held.Sign() < 0 && qty.Cmp(held.Abs()) <= 0
}

// affordable refuses a buy that costs more cash than the account holds.
func (b *Broker) affordable(o *live.Order, qty, px money.Amount) error {
	if o.Side == live.Buy && !o.ReduceOnly && qty.Mul(px).GreaterThan(b.cash) {
		return live.Rejected(fmt.Sprintf("insufficient buying power: cost %s, cash %s", qty.Mul(px).Round(2), b.cash.Round(2)))
	}
	return nil
}

// marketable returns the fill price if the order can trade now: market orders at the touch,
// limit orders when the touch is at or through the limit.
func marketable(o *live.Order, t Tick) (money.Amount, bool) {
	touch := t.Ask
	if o.Side == live.Sell {
		touch = t.Bid
	}
	if o.Type != live.Limit {
		return touch, true
	}
	if o.Side == live.Buy && touch.Cmp(*o.LimitPrice) <= 0 {
		return touch, true
	}
	if o.Side == live.Sell && touch.Cmp(*o.LimitPrice) >= 0 {
		return touch, true
	}
	return money.Zero, false
}

// matchResting fills resting limit orders the market has crossed; a resting buy the account
// can no longer afford is cancelled.
func (b *Broker) matchResting() {
	ids := make([]string, 0)
	for id, o := range b.orders {
		if o.Status.Open() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		o := b.orders[id]
		t, _ := b.mkt.Tick(o.Symbol)
		px, ok := marketable(o, t)
		if !ok {
			continue
		}
		remaining := o.Quantity.Sub(o.FilledQty)
		if o.ReduceOnly && !b.reduces(o.Symbol, o.Side, remaining) {
			o.Status, o.UpdatedAt = live.StatusCancelled, b.now()
			b.publish(*o, money.Zero, money.Zero)
			continue
		}
		if err := b.affordable(o, remaining, px); err != nil {
			o.Status, o.UpdatedAt = live.StatusCancelled, b.now()
			b.publish(*o, money.Zero, money.Zero)
			continue
		}
		b.fill(o, remaining, px)
	}
}

// fill books a fill: cash, position (average price, realised P&L) and the order.
func (b *Broker) fill(o *live.Order, qty, px money.Amount) {
	p := b.positions[o.Symbol]
	if p == nil {
		p = &position{}
		b.positions[o.Symbol] = p
	}
	signed := qty
	if o.Side == live.Sell {
		signed = qty.Neg()
	}
	b.cash = b.cash.Sub(signed.Mul(px))
	switch {
	case p.qty.IsZero() || p.qty.Sign() == signed.Sign(): // open or add
		total := p.qty.Add(signed)
		p.avg = p.avg.Mul(p.qty.Abs()).Add(px.Mul(qty)).Div(total.Abs())
		p.qty = total
	default: // reduce, close or flip
		closing := money.Min(qty, p.qty.Abs())
		pnl := px.Sub(p.avg).Mul(closing)
		if p.qty.Sign() < 0 {
			pnl = pnl.Neg()
		}
		p.realized = p.realized.Add(pnl)
		p.qty = p.qty.Add(signed)
		switch {
		case p.qty.IsZero():
			p.avg = money.Zero
		case p.qty.Sign() == signed.Sign(): // flipped: the remainder opened at px
			p.avg = px
		}
	}
	filledBefore := o.FilledQty
	o.FilledQty = o.FilledQty.Add(qty)
	o.AvgFillPrice = o.AvgFillPrice.Mul(filledBefore).Add(px.Mul(qty)).Div(o.FilledQty)
	o.Status, o.UpdatedAt = live.StatusFilled, b.now()
	b.publish(*o, qty, px)
}

// CancelOrder implements live.Broker.
func (b *Broker) CancelOrder(ctx context.Context, orderID string) error {
	fault := b.faults.next("cancel_order")
	if err := fault.pre(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.faults.rejectsCancel(orderID) {
		return live.Rejected("cancel rejected for " + orderID)
	}
	b.sync()
	o, ok := b.orders[orderID]
	if !ok {
		return live.Rejected("unknown order " + orderID)
	}
	if !o.Status.Open() {
		return live.Rejected(fmt.Sprintf("order %s is %s", orderID, o.Status))
	}
	o.Status, o.UpdatedAt = live.StatusCancelled, b.now()
	b.publish(*o, money.Zero, money.Zero)
	return fault.post()
}

// OrderByClientID implements live.Broker.
func (b *Broker) OrderByClientID(ctx context.Context, clientOrderID string) (live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id, ok := b.byClient[clientOrderID]
	if !ok {
		return live.Order{}, live.ErrOrderNotFound
	}
	return *b.orders[id], nil
}

// Subscribe implements live.Broker.
func (b *Broker) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	ch := make(chan live.OrderUpdate, 1024)
	b.mu.Lock()
	b.subs = append(b.subs, ch)
	b.mu.Unlock()
	go func() {
		<-ctx.Done()
		b.mu.Lock()
		for i, s := range b.subs {
			if s == ch {
				b.subs = append(b.subs[:i], b.subs[i+1:]...)
				break
			}
		}
		b.mu.Unlock()
		close(ch)
	}()
	return ch
}

// publish fans an update out without blocking; a full subscriber misses it.
func (b *Broker) publish(o live.Order, qty, px money.Amount) {
	b.updates++
	u := live.OrderUpdate{Order: o, FillQty: qty, FillPx: px, Time: b.now(), Sequence: b.updates}
	for _, ch := range b.subs {
		select {
		case ch <- u:
		default:
		}
	}
}

// ErrFault is returned by injected error replies.
var ErrFault = errors.New("injected fault")
