package engine

import (
	"fmt"
	"testing"
	"time"

	"cockpit/live/money"
)

var t0 = time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)

func perMinute(scope string, n int64) Rates {
	return Rates{Scope: scope, PerMinute: Limit{Set: true, N: n}}
}

// TestRateLimiterWindow is case 22: the N+1st call in the window is refused with the time
// until the oldest call leaves it.
func TestRateLimiterWindow(t *testing.T) {
	var r RateLimiter
	rates := []Rates{perMinute("tool:place_order", 3)}
	for i := 0; i < 3; i++ {
		release, _, _, ok := r.Acquire(t0.Add(time.Duration(i)*10*time.Second), rates, "tool", "a")
		if !ok {
			t.Fatalf("call %d refused", i+1)
		}
		release()
	}
	_, scope, retry, ok := r.Acquire(t0.Add(25*time.Second), rates, "tool", "a")
	if ok {
		t.Fatal("4th call in a minute admitted")
	}
	if scope != "tool:place_order.requests_per_minute" || retry != 35*time.Second {
		t.Errorf("got %s retry %s, want tool:place_order.requests_per_minute retry 35s", scope, retry)
	}
	if _, _, _, ok := r.Acquire(t0.Add(60*time.Second), rates, "tool", "a"); !ok {
		t.Error("call after the first left the window refused")
	}
}

func TestRateLimiterZeroAndConcurrency(t *testing.T) {
	var r RateLimiter
	if _, scope, _, ok := r.Acquire(t0, []Rates{perMinute("global", 0)}, "tool", "a"); ok || scope != "global.requests_per_minute" {
		t.Errorf("limit 0: ok=%v scope=%s, want refused by global.requests_per_minute", ok, scope)
	}
	conc := []Rates{{Scope: "agent:llm", MaxConcurrent: Limit{Set: true, N: 1}}}
	release, _, _, ok := r.Acquire(t0, conc, "llm", "a")
	if !ok {
		t.Fatal("first concurrent call refused")
	}
	if _, scope, _, ok := r.Acquire(t0, conc, "llm", "a"); ok || scope != "agent:llm.max_concurrent" {
		t.Errorf("second concurrent call: ok=%v scope=%s", ok, scope)
	}
	if _, _, _, ok := r.Acquire(t0, conc, "tool", "a"); !ok {
		t.Error("another kind shares the llm counter")
	}
	release()
	release() // idempotent
	if _, _, _, ok := r.Acquire(t0, conc, "llm", "a"); !ok {
		t.Error("call after release refused")
	}
}

func TestRateLimiterRefusalDoesNotCount(t *testing.T) {
	var r RateLimiter
	tight := []Rates{perMinute("global", 5), perMinute("tool:x", 1)}
	r.Acquire(t0, tight, "tool", "a")
	for i := 0; i < 10; i++ {
		if _, _, _, ok := r.Acquire(t0.Add(time.Second), tight, "tool", "a"); ok {
			t.Fatal("tool limit not enforced")
		}
	}
	// The refused calls did not use up the global budget.
	if _, _, _, ok := r.Acquire(t0.Add(2*time.Second), []Rates{perMinute("global", 5)}, "tool", "a"); !ok {
		t.Error("refused calls consumed the global budget")
	}
}

func budget() *CostBudget {
	return &CostBudget{Prices: map[string]Price{"m": {InputPerMTok: money.MustParse("1"), OutputPerMTok: money.MustParse("4")}}}
}

func dayLimit(usd string) Policy {
	return Policy{PerDayUSD: MoneyLimit{Set: true, V: money.MustParse(usd)}}
}

// TestCostReserveSettle is case 24: a reservation that could break the day's limit is
// refused before anything is sent; settling releases the unused part; unknown pricing is
// refused.
func TestCostReserveSettle(t *testing.T) {
	c := budget()
	// 100k in + 100k out = 0.1 + 0.4 = $0.50 worst case.
	id, est, code, err := c.Reserve(t0, dayLimit("1"), "m", 100_000, 100_000)
	if err != nil || est.Cmp(money.MustParse("0.5")) != 0 {
		t.Fatalf("reserve: %v %s %s, want $0.5", err, est, code)
	}
	if _, _, code, err := c.Reserve(t0, dayLimit("1"), "m", 200_000, 200_000); err == nil || code != "budget:per_day" {
		t.Fatalf("over the day: code %q err %v, want budget:per_day", code, err)
	}
	got := c.Settle(id, "m", 100_000, 10_000) // $0.14 real
	if got.Cmp(money.MustParse("0.14")) != 0 {
		t.Errorf("settled %s, want 0.14", got)
	}
	if spent := c.Spent(t0.Add(-time.Hour)); spent.Cmp(money.MustParse("0.14")) != 0 {
		t.Errorf("spent %s after settle, want 0.14 (the rest released)", spent)
	}
	if _, _, _, err := c.Reserve(t0, dayLimit("1"), "m", 200_000, 200_000); err == nil {
		t.Error("$1.00 on top of $0.14 admitted under a $1 day")
	}
	if _, _, _, err := c.Reserve(t0, dayLimit("1"), "m", 100_000, 100_000); err != nil {
		t.Errorf("$0.50 on top of $0.14 refused: %v", err)
	}
	if _, _, code, err := c.Reserve(t0, Policy{}, "unknown-model", 1, 1); err == nil || code != "budget:unknown_price" {
		t.Errorf("unknown price: code %q err %v", code, err)
	}
	if _, _, code, _ := c.Reserve(t0, Policy{PerRequestUSD: MoneyLimit{Set: true, V: money.MustParse("0.01")}}, "m", 100_000, 0); code != "budget:per_request" {
		t.Errorf("per request: code %q", code)
	}
	if _, _, code, _ := c.Reserve(t0, Policy{PerDayUSD: MoneyLimit{Set: true}}, "m", 1, 0); code != "budget:per_day" {
		t.Errorf("a zero day limit admitted a call (code %q)", code)
	}
}

// TestCostDayBoundary checks that the day window starts at UTC midnight and the hour window
// slides, and that restored spending counts (case 23).
func TestCostDayBoundary(t *testing.T) {
	c := budget()
	c.Record(t0.Add(-2*time.Hour), money.MustParse("0.9")) // earlier today, before a restart
	if _, _, code, _ := c.Reserve(t0, dayLimit("1"), "m", 100_000, 100_000); code != "budget:per_day" {
		t.Errorf("restored spend ignored: code %q", code)
	}
	tomorrow := time.Date(2026, 6, 2, 0, 0, 1, 0, time.UTC)
	if _, _, _, err := c.Reserve(tomorrow, dayLimit("1"), "m", 100_000, 100_000); err != nil {
		t.Errorf("new day still limited: %v", err)
	}
	hour := Policy{PerHourUSD: MoneyLimit{Set: true, V: money.MustParse("1")}}
	if _, _, _, err := c.Reserve(t0, hour, "m", 100_000, 100_000); err != nil {
		t.Errorf("spend two hours ago counted in the hour window: %v", err)
	}
}

// TestRateLimiterPerAgent (issue 27 item 7): every agent has its own counters, so one agent
// spending a scope's budget leaves another's untouched; the counters of agents long idle are
// swept once many are held.
func TestRateLimiterPerAgent(t *testing.T) {
	var r RateLimiter
	rates := []Rates{perMinute("global", 1), {Scope: "tool:x", MaxConcurrent: Limit{Set: true, N: 1}}}
	if _, _, _, ok := r.Acquire(t0, rates, "tool", "mcp:a@1#1"); !ok {
		t.Fatal("a's first call refused")
	}
	if _, scope, _, ok := r.Acquire(t0, rates, "tool", "mcp:a@1#1"); ok || scope != "global.requests_per_minute" {
		t.Errorf("a's second call: ok=%v scope=%s, want refused by global.requests_per_minute", ok, scope)
	}
	if _, _, _, ok := r.Acquire(t0, rates, "tool", "mcp:b@1#2"); !ok {
		t.Error("b refused by a's budget (per minute and in flight)")
	}
	for i := range maxCounters {
		release, _, _, _ := r.Acquire(t0, []Rates{perMinute("global", 1)}, "tool", fmt.Sprint("c", i))
		release()
	}
	r.Acquire(t0.Add(2*time.Hour), []Rates{perMinute("global", 1)}, "tool", "last")
	if got := len(r.calls); got != 5 {
		t.Errorf("counters held after the sweep: got %d, want 5 (a's and b's two scopes each, in flight, and the last)", got)
	}
}
