package paper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"cockpit/internal/fanout"
	"cockpit/live"
	"cockpit/live/money"
)

// qtyStep is the smallest share fraction the paper broker trades (notional orders round down).
var qtyStep = money.MustParse("0.000001")

// State is the paper account: everything that must survive a restart. Prices are not part of
// it; they follow from Seed and MarketStart. A broker keeps in memory the orders still open;
// a settled order (filled, cancelled) is kept by its Store (store.go).
type State struct {
	Seed        int64                     `json:"seed"`
	MarketStart time.Time                 `json:"market_start"`
	Cash        money.Amount              `json:"cash"`
	Positions   map[string]*PositionState `json:"positions,omitempty"`
	Orders      map[string]*live.Order    `json:"orders,omitempty"`    // in memory: the open ones (settled ones are in the Store)
	ByClient    map[string]string         `json:"by_client,omitempty"` // client order id → id, of Orders
	Seq         int64                     `json:"seq"`
	DayStart    *DayMark                  `json:"day_start,omitempty"` // the day P&L's baseline (day.go)
}

// PositionState is one holding of the paper account.
type PositionState struct {
	Qty      money.Amount `json:"qty"`
	Avg      money.Amount `json:"avg_price"`
	Realized money.Amount `json:"realized_pnl"`
}

// Config configures a paper broker.
type Config struct {
	Key    string       // broker key (default "paper")
	Market MarketConfig // symbols, step and time scale (seed and start come from State when given)
	Cash   money.Amount // starting cash for a new account (default 100000)
	Now    func() time.Time
	Faults *Faults // nil: no faults
	// State restores an account; nil starts a new one at Now with Market.Seed.
	State *State
	// History starts a new account's market this long before Now, so price history exists
	// from the first moment (bars, signals). Ignored when State is given.
	History time.Duration
	// Store, when set, saves every change, under the broker's lock, and keeps the settled
	// orders (State's settled orders are taken to be in it already). The broker acknowledges
	// only what it saved, as an exchange does: a change Store refuses (a full disk) is undone,
	// the call that made it fails (an order is rejected, a cancel fails, a fill waits), and
	// the error is kept for PersistErr. Without one, settled orders stay in memory.
	Store Store
}

// Broker is the paper broker. It implements live.Broker.
type Broker struct {
	key     string
	mkt     *Market
	now     func() time.Time
	faults  *Faults
	persist Store

	mu         sync.Mutex
	st         *State
	touched    touched // what the change under way changed (save.go)
	saved      saved   // with a Store: the account as last saved, what a refused change goes back to
	settled    settled // without a Store: the settled orders
	persistErr error
	updates    uint64
	pending    []live.OrderUpdate // published once the change is saved
	subs       []chan live.OrderUpdate
	// matched is where the last matching pass left nothing marketable: the market step and
	// the account's order sequence. Until either changes there is nothing to match.
	matched struct {
		step   uint64
		orders int64
		ok     bool
	}
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
	st := cfg.State
	if st == nil {
		cash := cfg.Cash
		if cash.Sign() <= 0 {
			cash = money.FromInt(100_000)
		}
		st = &State{Seed: cfg.Market.Seed, MarketStart: cfg.Now().UTC().Add(-cfg.History), Cash: cash}
	}
	ensureMaps(st)
	mc := cfg.Market
	mc.Seed = st.Seed
	mkt, err := NewMarket(mc, st.MarketStart)
	if err != nil {
		return nil, err
	}
	b := &Broker{key: cfg.Key, mkt: mkt, now: cfg.Now, faults: cfg.Faults, persist: cfg.Store, st: st}
	if err := b.load(); err != nil {
		return nil, err
	}
	return b, nil
}

// Name implements live.Broker.
func (b *Broker) Name() string { return b.key }

// Market returns the simulated market (for charts and the built-in strategy).
func (b *Broker) Market() *Market { return b.mkt }

// PersistErr returns the last persistence failure, or nil.
func (b *Broker) PersistErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.persistErr
}

// tick is the current top of book of sym. Callers hold b.mu.
func (b *Broker) tick(sym string) (Tick, bool) { return b.mkt.TickAt(sym, b.now()) }

// sync fills resting orders the market has crossed; fills that cannot be saved wait for a
// later pass. Callers hold b.mu.
func (b *Broker) sync() {
	if b.matchResting() {
		_ = b.changed()
	}
}

// Advance fills what crossed; Run calls it on a timer.
func (b *Broker) Advance() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
}

// Run fills crossed resting orders every interval until ctx ends.
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
	t, ok := b.tick(symbol)
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
	out := make([]live.Position, 0, len(b.st.Positions))
	for sym, p := range b.st.Positions {
		if p.Qty.IsZero() {
			continue
		}
		t, _ := b.tick(sym)
		out = append(out, live.Position{Symbol: sym, Qty: p.Qty, AvgPrice: p.Avg,
			MarketValue: p.Qty.Mul(t.Last), RealizedPnL: p.Realized,
			UnrealizedPnL: t.Last.Sub(p.Avg).Mul(p.Qty)})
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
	eq := b.st.Cash
	for _, p := range b.positionsLocked() {
		eq = eq.Add(p.MarketValue)
	}
	return live.Account{Cash: b.st.Cash, Equity: eq, BuyingPower: money.Max(money.Zero, b.st.Cash)}, nil
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
	for _, o := range b.st.Orders {
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
		o, found, err := b.orderByClient(req.ClientOrderID)
		if err != nil { // cannot tell a resend from a new order: take neither
			return live.Order{}, live.Rejected(err.Error())
		}
		if found {
			return o, nil
		}
	}
	if why := unsupported(req); why != "" {
		return live.Order{}, live.Rejected(why)
	}
	t, ok := b.tick(req.Symbol)
	if !ok {
		return live.Order{}, live.Rejected("unknown symbol " + req.Symbol)
	}
	if req.Side != live.Buy && req.Side != live.Sell {
		return live.Order{}, live.Rejected("side must be buy or sell")
	}
	qty, err := quantity(req, t)
	if err != nil {
		return live.Order{}, err
	}
	if req.Type == live.Limit && (req.LimitPrice == nil || req.LimitPrice.Sign() <= 0) {
		return live.Order{}, live.Rejected("a limit order needs a positive limit price")
	}
	if req.Type.Triggered() {
		if err := live.CheckOrderPrices(req.Type, req.Prices()); err != nil {
			return live.Order{}, live.Rejected(err.Error())
		}
	}
	if req.ReduceOnly && !b.reduces(req.Symbol, req.Side, qty) {
		return live.Order{}, live.Rejected("reduce-only order would increase or flip the position")
	}
	now := b.now()
	o := &live.Order{ID: fmt.Sprintf("P%06d", b.st.Seq+1), ClientOrderID: req.ClientOrderID, Symbol: req.Symbol,
		Side: req.Side, Type: req.Type, Quantity: &qty, Notional: req.Notional, LimitPrice: req.LimitPrice,
		StopPrice: req.StopPrice, TrailAmount: req.TrailAmount, TrailPercent: req.TrailPercent,
		ReduceOnly: req.ReduceOnly, Status: live.StatusAccepted, CreatedAt: now, UpdatedAt: now}
	if o.Type == "" {
		o.Type = live.Market
	}
	arm(o, t) // a stop whose trigger already traded is marketable now
	px, crosses := marketable(o, t)
	if crosses {
		if err := b.affordable(o, qty, px); err != nil {
			return live.Order{}, err
		}
	} else if o.Type == live.Market {
		return live.Order{}, live.Rejected("no liquidity")
	}
	b.st.Seq++
	b.st.Orders[o.ID] = o
	if o.ClientOrderID != "" {
		b.st.ByClient[o.ClientOrderID] = o.ID
	}
	if crosses {
		b.fill(o, qty, px)
	} else {
		b.publish(*o, money.Zero, money.Zero)
	}
	if err := b.changed(); err != nil {
		return live.Order{}, live.Rejected(err.Error()) // undone: the broker never took it
	}
	return *o, nil
}

// quantity resolves a quantity or a notional at the touch (rounded down to the share step).
func quantity(req live.OrderRequest, t Tick) (money.Amount, error) {
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

func (b *Broker) held(sym string) money.Amount {
	if p := b.st.Positions[sym]; p != nil {
		return p.Qty
	}
	return money.Zero
}

func (b *Broker) reduces(sym, side string, qty money.Amount) bool {
	held := b.held(sym)
	if side == live.Sell {
		return held.Sign() > 0 && qty.Cmp(held) <= 0
	}
	return held.Sign() < 0 && qty.Cmp(held.Abs()) <= 0
}

// affordable refuses a buy that costs more cash than the account holds.
func (b *Broker) affordable(o *live.Order, qty, px money.Amount) error {
	if o.Side == live.Buy && !o.ReduceOnly && qty.Mul(px).GreaterThan(b.st.Cash) {
		return live.Rejected(fmt.Sprintf("insufficient buying power: cost %s, cash %s", qty.Mul(px).Round(2), b.st.Cash.Round(2)))
	}
	return nil
}

// marketable returns the fill price if the order can trade now: market orders (and triggered
// stops and trailing stops) at the touch, limit orders (and triggered stop-limits) when the
// touch is at or through the limit; a stop not yet triggered cannot trade.
func marketable(o *live.Order, t Tick) (money.Amount, bool) {
	touch := t.Ask
	if o.Side == live.Sell {
		touch = t.Bid
	}
	switch {
	case o.Type.Triggered() && !o.Triggered:
		return money.Zero, false
	case o.Type != live.Limit && o.Type != live.StopLimit:
		return touch, true
	case o.Side == live.Buy && touch.Cmp(*o.LimitPrice) <= 0:
		return touch, true
	case o.Side == live.Sell && touch.Cmp(*o.LimitPrice) >= 0:
		return touch, true
	}
	return money.Zero, false
}

// matchResting fills resting limit orders the market has crossed; a resting order the account
// can no longer honour is cancelled. It reports whether anything changed.
func (b *Broker) matchResting() bool {
	// A resting order's marketability depends only on its symbol's tick, which is fixed
	// within a market step; a pass fills or cancels every marketable order. So with no new
	// order since a pass in this step, another pass finds nothing (it walked every order).
	step := b.mkt.step(b.now())
	if b.matched.ok && b.matched.step == step && b.matched.orders == b.st.Seq {
		return false
	}
	defer func() { b.matched.step, b.matched.orders, b.matched.ok = step, b.st.Seq, true }()
	var ids []string
	for id, o := range b.st.Orders {
		if o.Status.Open() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	changed := false
	for _, id := range ids {
		o := b.st.Orders[id]
		t, _ := b.tick(o.Symbol)
		if advance(o, t) { // a trailing stop followed the price, or a stop triggered: saved
			changed = true
			o.UpdatedAt = b.now()
			b.touch(id)
		}
		px, ok := marketable(o, t)
		if !ok {
			continue
		}
		changed = true
		remaining := o.Quantity.Sub(o.FilledQty)
		if (o.ReduceOnly && !b.reduces(o.Symbol, o.Side, remaining)) || b.affordable(o, remaining, px) != nil {
			o.Status, o.UpdatedAt = live.StatusCancelled, b.now()
			b.publish(*o, money.Zero, money.Zero)
			continue
		}
		b.fill(o, remaining, px)
	}
	return changed
}

// fill books a fill: cash, position (average price, realised P&L) and the order.
func (b *Broker) fill(o *live.Order, qty, px money.Amount) {
	p := b.st.Positions[o.Symbol]
	if p == nil {
		p = &PositionState{}
		b.st.Positions[o.Symbol] = p
	}
	b.touchPosition(o.Symbol)
	signed := qty
	if o.Side == live.Sell {
		signed = qty.Neg()
	}
	b.st.Cash = b.st.Cash.Sub(signed.Mul(px))
	switch {
	case p.Qty.IsZero() || p.Qty.Sign() == signed.Sign(): // open or add
		total := p.Qty.Add(signed)
		p.Avg = p.Avg.Mul(p.Qty.Abs()).Add(px.Mul(qty)).Div(total.Abs())
		p.Qty = total
	default: // reduce, close or flip
		closing := money.Min(qty, p.Qty.Abs())
		pnl := px.Sub(p.Avg).Mul(closing)
		if p.Qty.Sign() < 0 {
			pnl = pnl.Neg()
		}
		p.Realized = p.Realized.Add(pnl)
		p.Qty = p.Qty.Add(signed)
		switch {
		case p.Qty.IsZero():
			p.Avg = money.Zero
		case p.Qty.Sign() == signed.Sign(): // flipped: the remainder opened at px
			p.Avg = px
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
	o, ok := b.st.Orders[orderID]
	if !ok {
		if done, found, err := b.orderByID(orderID); err == nil && found {
			return live.Rejected(fmt.Sprintf("order %s is %s", orderID, done.Status))
		}
		return live.Rejected("unknown order " + orderID)
	}
	if !o.Status.Open() {
		return live.Rejected(fmt.Sprintf("order %s is %s", orderID, o.Status))
	}
	o.Status, o.UpdatedAt = live.StatusCancelled, b.now()
	b.publish(*o, money.Zero, money.Zero)
	if err := b.changed(); err != nil {
		return live.Rejected(err.Error()) // undone: the order still rests
	}
	return fault.post()
}

// OrderByClientID implements live.Broker.
func (b *Broker) OrderByClientID(ctx context.Context, clientOrderID string) (live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, found, err := b.orderByClient(clientOrderID)
	switch {
	case err != nil:
		return live.Order{}, err
	case !found:
		return live.Order{}, live.ErrOrderNotFound
	}
	return o, nil
}

// Subscribe implements live.Broker.
func (b *Broker) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	return fanout.Subscribe(ctx, &b.mu, &b.subs, 1024)
}

// publish queues an update of the change under way (and marks the order changed); changed
// sends it once the change is saved.
func (b *Broker) publish(o live.Order, qty, px money.Amount) {
	b.touch(o.ID)
	b.pending = append(b.pending, live.OrderUpdate{Order: o, FillQty: qty, FillPx: px, Time: b.now()})
}

// send fans an update out without blocking; a full subscriber misses it.
func (b *Broker) send(u live.OrderUpdate) {
	b.updates++
	u.Sequence = b.updates
	for _, ch := range b.subs {
		select {
		case ch <- u:
		default:
		}
	}
}

// ErrFault is returned by injected error replies.
var ErrFault = errors.New("injected fault")

// Realized is the realised P&L of every position, closed ones included.
func (b *Broker) Realized() money.Amount {
	b.mu.Lock()
	defer b.mu.Unlock()
	sum := money.Zero
	for _, p := range b.st.Positions {
		sum = sum.Add(p.Realized)
	}
	return sum
}

// Snapshot returns a deep copy of the account in memory: its cash, its positions and its open
// orders (settled ones are in its Store).
func (b *Broker) Snapshot() *State {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, err := json.Marshal(b.st)
	if err != nil {
		panic(err) // State holds only JSON-safe values
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		panic(err)
	}
	return &s
}
