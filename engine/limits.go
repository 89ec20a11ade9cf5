package engine

import (
	"fmt"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// RateLimiter enforces every layer's rate limits against that layer's own counters, kept per
// agent (one MCP client session is an agent): sliding one-minute and one-hour windows and a
// count of calls in flight. Excess is refused with a retry hint, never queued. One limiter is
// shared by the whole engine; one agent using its budget up never refuses another.
type RateLimiter struct {
	mu       sync.Mutex
	calls    map[string][]time.Time
	inflight map[string]int64
}

// maxCounters is how many counters the limiter holds before it sweeps the idle ones.
const maxCounters = 4096

// Acquire admits a call of agent who under every scope's limits, or says which scope refuses
// it and when a retry could pass. On success the caller must call release when the call ends.
func (r *RateLimiter) Acquire(now time.Time, rates []Rates, kind, who string) (release func(), scope string, retry time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls, r.inflight = map[string][]time.Time{}, map[string]int64{}
	}
	if len(r.calls) >= maxCounters {
		r.sweep(now)
	}
	for _, rt := range rates {
		key := counterKey(kind, rt.Scope, who)
		r.calls[key] = prune(r.calls[key], now.Add(-time.Hour))
		if rt.MaxConcurrent.Set && r.inflight[key] >= rt.MaxConcurrent.N {
			return nil, rt.Scope + ".max_concurrent", time.Second, false
		}
		for _, w := range []struct {
			name   string
			limit  Limit
			window time.Duration
		}{{"requests_per_minute", rt.PerMinute, time.Minute}, {"requests_per_hour", rt.PerHour, time.Hour}} {
			if !w.limit.Set {
				continue
			}
			in := inWindow(r.calls[key], now.Add(-w.window))
			if int64(len(in)) >= w.limit.N {
				wait := w.window
				if len(in) > 0 && w.limit.N > 0 {
					wait = in[int64(len(in))-w.limit.N].Add(w.window).Sub(now)
				}
				return nil, rt.Scope + "." + w.name, wait, false
			}
		}
	}
	var keys []string
	for _, rt := range rates {
		key := counterKey(kind, rt.Scope, who)
		r.calls[key] = append(r.calls[key], now)
		r.inflight[key]++
		keys = append(keys, key)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			for _, k := range keys {
				r.inflight[k]--
			}
			r.mu.Unlock()
		})
	}, "", 0, true
}

// counterKey names one agent's counter of one scope's limits.
func counterKey(kind, scope, who string) string { return kind + "|" + scope + "|" + who }

// sweep drops the counters with no call in the last hour and none in flight (mu held).
func (r *RateLimiter) sweep(now time.Time) {
	for k, ts := range r.calls {
		if len(prune(ts, now.Add(-time.Hour))) == 0 && r.inflight[k] == 0 {
			delete(r.calls, k)
			delete(r.inflight, k)
		}
	}
}

func prune(ts []time.Time, before time.Time) []time.Time {
	i := 0
	for i < len(ts) && ts[i].Before(before) {
		i++
	}
	return ts[i:]
}

func inWindow(ts []time.Time, since time.Time) []time.Time {
	for i, t := range ts {
		if t.After(since) {
			return ts[i:]
		}
	}
	return nil
}

// Price is what one model costs per million tokens.
type Price struct {
	InputPerMTok  money.Amount
	OutputPerMTok money.Amount
}

// CostBudget enforces LLM spending before each call: a reservation for the worst case
// (prompt tokens plus the maximum output) must fit the per-request, per-hour and per-day
// limits; after the call the real usage is settled and the difference released. A model
// without a price is refused (fail-closed).
type CostBudget struct {
	Prices map[string]Price
	mu     sync.Mutex
	spent  []spend // settled and reserved costs, oldest first
	nextID int
}

type spend struct {
	id   int
	at   time.Time
	usd  money.Amount
	open bool // a reservation not yet settled
}

var perMillion = money.FromInt(1_000_000)

// Cost prices a call.
func (c *CostBudget) Cost(model string, in, out int64) (money.Amount, error) {
	p, ok := c.Prices[model]
	if !ok {
		return money.Zero, fmt.Errorf("no price for model %q (set agents.llm.prices.%s)", model, model)
	}
	return money.FromInt(in).Mul(p.InputPerMTok).Add(money.FromInt(out).Mul(p.OutputPerMTok)).Div(perMillion), nil
}

// Reserve books the worst case of a call against the limits of p, or explains which one it
// would break ("budget:per_request", "budget:per_hour", "budget:per_day", "budget:unknown_price").
func (c *CostBudget) Reserve(now time.Time, p Policy, model string, promptTokens, maxOutput int64) (int, money.Amount, live.Reason, error) {
	est, err := c.Cost(model, promptTokens, maxOutput)
	if err != nil {
		return 0, money.Zero, live.BudgetCode("unknown_price"), err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.PerRequestUSD.Set && est.GreaterThan(p.PerRequestUSD.V) {
		return 0, est, live.BudgetCode("per_request"), fmt.Errorf("this call could cost $%s, over the per-request limit $%s", est.Round(6), p.PerRequestUSD.V)
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	for _, w := range []struct {
		code  live.Reason
		limit MoneyLimit
		since time.Time
	}{{live.BudgetCode("per_hour"), p.PerHourUSD, now.Add(-time.Hour)}, {live.BudgetCode("per_day"), p.PerDayUSD, day}} {
		if !w.limit.Set {
			continue
		}
		used := c.sumSince(w.since)
		if used.Add(est).GreaterThan(w.limit.V) {
			return 0, est, w.code, fmt.Errorf("spent $%s of $%s; this call could cost $%s", used.Round(6), w.limit.V, est.Round(6))
		}
	}
	c.nextID++
	c.spent = append(c.spent, spend{id: c.nextID, at: now, usd: est, open: true})
	return c.nextID, est, "", nil
}

// Settle replaces a reservation by the real cost of the call and returns it.
func (c *CostBudget) Settle(id int, model string, in, out int64) money.Amount {
	cost, err := c.Cost(model, in, out)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.spent {
		if c.spent[i].id == id && c.spent[i].open {
			if err == nil {
				c.spent[i].usd = cost
			}
			c.spent[i].open = false
			return c.spent[i].usd
		}
	}
	return cost
}

// Record adds spending that happened before this process started (rebuilt from the audit).
func (c *CostBudget) Record(at time.Time, usd money.Amount) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spent = append(c.spent, spend{at: at, usd: usd})
}

// Spent sums the costs (settled and reserved) since t.
func (c *CostBudget) Spent(since time.Time) money.Amount {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sumSince(since)
}

func (c *CostBudget) sumSince(since time.Time) money.Amount {
	total := money.Zero
	for _, s := range c.spent {
		if !s.at.Before(since) {
			total = total.Add(s.usd)
		}
	}
	return total
}
