// Package strategy is cockpit's built-in agent: a small momentum and mean-reversion rule set
// over the paper market that trades through the same tools an LLM would. Its choices are a
// function of its seed, its turn number and what the tools return, so a replayed market gives
// a replayed session. Run long enough it meets the mandate's limits: it looks at every symbol
// in its list (the default list includes one the default mandate excludes), now and then it
// sizes an order with more conviction than the order cap allows, and it keeps buying until the
// day's order count or the exposure cap stops it.
package strategy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// Config shapes the strategy.
type Config struct {
	Seed     int64
	Symbols  []string
	Notional money.Amount // the typical order size in USD
	// Bars and Every set the look-back: Bars closes spaced Every seconds (default 20 × 60 s).
	Bars  int
	Every int
}

// Agent is the strategy. It keeps only what it placed (to cancel stale resting orders).
type Agent struct {
	cfg     Config
	turn    int
	placed  map[string]int  // resting order id → turn placed
	barred  map[string]bool // symbols the mandate refuses outright
	quietTo int             // no new entries before this turn (after a refused order)
}

// New returns a strategy agent.
func New(cfg Config) (*Agent, error) {
	if len(cfg.Symbols) == 0 {
		return nil, fmt.Errorf("strategy: no symbols")
	}
	if cfg.Notional.Sign() <= 0 {
		return nil, fmt.Errorf("strategy: notional %s must be positive", cfg.Notional)
	}
	if cfg.Bars < 6 {
		cfg.Bars = 20
	}
	if cfg.Every <= 0 {
		cfg.Every = 60
	}
	return &Agent{cfg: cfg, placed: map[string]int{}, barred: map[string]bool{}}, nil
}

// Name implements engine.Agent.
func (a *Agent) Name() string { return "strategy" }

// Turn implements engine.Agent: read the book, tidy stale resting orders, then look at two
// symbols and act on their signals.
func (a *Agent) Turn(ctx context.Context, t *engine.Turn) error {
	a.turn++
	rng := rand.New(rand.NewPCG(uint64(a.cfg.Seed), uint64(a.turn)))
	held := a.positions(ctx, t)
	a.tidy(ctx, t)
	if offered(t, "get_news") && a.turn%5 == 1 {
		t.Call(ctx, "get_news", map[string]any{"limit": 3})
	}
	n := len(a.cfg.Symbols)
	for i := 0; i < 2 && i < n; i++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sym := a.cfg.Symbols[(2*(a.turn-1)+i)%n]
		a.trade(ctx, t, rng, sym, held[sym], i == 0 && a.turn%7 == 3)
	}
	return ctx.Err()
}

func offered(t *engine.Turn, name string) bool {
	for _, tool := range t.Tools() {
		if tool.Name == name {
			return true
		}
	}
	return false
}

// positions maps each held symbol to its quantity.
func (a *Agent) positions(ctx context.Context, t *engine.Turn) map[string]money.Amount {
	out := map[string]money.Amount{}
	r := t.Call(ctx, "get_positions", nil)
	for _, p := range list(r.Data, "positions") {
		sym, _ := p.Get("symbol")
		s, _ := sym.(string)
		out[s] = amount(p, "quantity")
	}
	return out
}

// tidy cancels the strategy's resting orders that are three turns old.
func (a *Agent) tidy(ctx context.Context, t *engine.Turn) {
	r := t.Call(ctx, "get_open_orders", nil)
	open := map[string]bool{}
	for _, o := range list(r.Data, "orders") {
		id, _ := o.Get("order_id")
		s, _ := id.(string)
		open[s] = true
	}
	for id, at := range a.placed {
		switch {
		case !open[id]:
			delete(a.placed, id) // filled or cancelled
		case a.turn-at >= 3:
			if res := t.Call(ctx, "cancel_order", map[string]any{"order_id": id}); res.OK() {
				delete(a.placed, id)
			}
		}
	}
}

// signal summarises the closes: fast and slow moving averages and the z-score of the last
// close against the slow average.
type signal struct {
	fast, slow, z float64
	last          money.Amount
}

func (a *Agent) read(ctx context.Context, t *engine.Turn, sym string) (signal, bool) {
	r := t.Call(ctx, "get_bars", map[string]any{"symbol": sym, "count": a.cfg.Bars, "every_seconds": a.cfg.Every})
	o, ok := r.Data.(*jsonv.Object)
	if !r.OK() || !ok {
		return signal{}, false
	}
	raw, _ := o.Get("closes")
	arr, _ := raw.([]any)
	closes := make([]float64, 0, len(arr))
	var last money.Amount
	for _, v := range arr {
		n, _ := v.(jsonv.Number)
		p, err := money.Parse(string(n))
		if err != nil || p.Sign() <= 0 {
			return signal{}, false
		}
		last = p
		closes = append(closes, p.Float64())
	}
	if len(closes) < 6 {
		return signal{}, false
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	s := signal{last: last, fast: mean(closes[len(closes)-5:]), slow: mean(closes)}
	v := 0.0
	for _, c := range closes {
		v += (c - s.slow) * (c - s.slow)
	}
	if sd := math.Sqrt(v / float64(len(closes))); sd > 0 {
		s.z = (closes[len(closes)-1] - s.slow) / sd
	}
	return s, true
}

// trade acts on one symbol: take profit or cut a faded position, buy momentum, or rest a
// limit order under a stretched price. A conviction order is sized 2.4 × the usual notional.
// After a refused entry the strategy backs off (see learn).
func (a *Agent) trade(ctx context.Context, t *engine.Turn, rng *rand.Rand, sym string, qty money.Amount, conviction bool) {
	if a.barred[sym] && qty.Sign() <= 0 {
		return
	}
	s, ok := a.read(ctx, t, sym)
	if !ok {
		return
	}
	entering := qty.Sign() == 0 && a.turn >= a.quietTo
	pct := money.FromInt(int64(60 + rng.IntN(81))) // 60–140 % of the usual size
	size := a.cfg.Notional.Mul(pct).Div(money.FromInt(100)).Round(2)
	if conviction {
		size = a.cfg.Notional.Mul(money.MustParse("2.4"))
	}
	switch {
	case qty.Sign() > 0 && (s.z > 1.5 || s.fast < s.slow*0.998):
		t.Call(ctx, "place_order", map[string]any{"symbol": sym, "side": "sell", "quantity": qty.String(),
			"reason": fmt.Sprintf("exit: z=%.2f fast=%.2f slow=%.2f", s.z, s.fast, s.slow)})
	case entering && s.z < -1.2:
		px := s.last.Mul(money.MustParse("0.997")).Round(2)
		q := size.Div(px).Truncate(0)
		if q.Sign() <= 0 {
			return
		}
		r := t.Call(ctx, "place_order", map[string]any{"symbol": sym, "side": "buy", "type": "limit", "quantity": q.String(),
			"limit_price": px.String(), "reason": fmt.Sprintf("mean reversion: z=%.2f, resting 0.3%% under %s", s.z, s.last)})
		if o, ok := r.Data.(*jsonv.Object); ok && r.OK() {
			if id, _ := o.Get("order_id"); id != nil {
				a.placed[fmt.Sprint(id)] = a.turn
			}
		}
		a.learn(sym, r)
	case entering && (s.fast > s.slow || conviction):
		r := t.Call(ctx, "place_order", map[string]any{"symbol": sym, "side": "buy", "notional": size.String(),
			"reason": fmt.Sprintf("momentum: fast %.2f over slow %.2f", s.fast, s.slow)})
		a.learn(sym, r)
	}
}

// learn backs off after a refused entry: the symbol for good when the mandate excludes it,
// every entry for thirty turns when the day's order count is used up or the book is at its
// exposure cap, and for two turns otherwise.
func (a *Agent) learn(sym string, r engine.Result) {
	if r.Decision != live.DecisionDeny {
		return
	}
	switch r.Limit {
	case live.LimitExcludeSymbols, live.LimitAllowedInstruments, live.LimitAssetClasses:
		a.barred[sym] = true
	case live.LimitTradesPerDay, live.LimitTotalExposure, live.LimitFunding, live.LimitLeverage:
		a.quietTo = a.turn + 30
	default:
		a.quietTo = a.turn + 2
	}
}

func list(data any, key string) []*jsonv.Object {
	o, ok := data.(*jsonv.Object)
	if !ok {
		return nil
	}
	v, _ := o.Get(key)
	arr, _ := v.([]any)
	out := make([]*jsonv.Object, 0, len(arr))
	for _, x := range arr {
		if xo, ok := x.(*jsonv.Object); ok {
			out = append(out, xo)
		}
	}
	return out
}

func amount(o *jsonv.Object, key string) money.Amount {
	v, _ := o.Get(key)
	n, _ := v.(jsonv.Number)
	a, err := money.Parse(string(n))
	if err != nil {
		return money.Zero
	}
	return a
}
