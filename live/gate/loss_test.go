package gate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/equitymark"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// lossDoc is the test mandate with a daily loss limit of 500 and a 2 % drawdown limit.
func lossDoc(controls string) string {
	if controls == "" {
		controls = `{"max_daily_loss_usd": 500, "max_drawdown_pct": 2}`
	}
	return strings.Replace(`{"controls": CONTROLS, "hard_caps"`, "CONTROLS", controls, 1) +
		strings.TrimPrefix(lossMandateTail, `{"hard_caps"`)
}

// equityBroker is the paper broker with an equity the test sets (a fill's P&L, as the
// account would report it) and an account read that can fail. It keeps no day mark itself,
// so the gate keeps it in the broker's mark file.
type equityBroker struct {
	live.Broker
	mu     sync.Mutex
	equity money.Amount
	err    error
	placed int
}

func (b *equityBroker) Account(ctx context.Context) (live.Account, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return live.Account{}, b.err
	}
	return live.Account{Cash: b.equity, Equity: b.equity, BuyingPower: b.equity}, nil
}

func (b *equityBroker) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	b.mu.Lock()
	b.placed++
	b.mu.Unlock()
	return b.Broker.PlaceOrder(ctx, r)
}

func (b *equityBroker) set(eq string) {
	b.mu.Lock()
	b.equity = money.MustParse(eq)
	b.mu.Unlock()
}

func newLossFixture(t testing.TB, controls string) (*fixture, *equityBroker, *[]gate.LossHalt) {
	t.Helper()
	f := newFixture(t, lossDoc(controls))
	eb := &equityBroker{Broker: f.paper, equity: money.MustParse("100000")}
	var mu sync.Mutex
	var told []gate.LossHalt
	f.gate.OnLossLimit = func(h gate.LossHalt) { mu.Lock(); told = append(told, h); mu.Unlock() }
	return f, eb, &told
}

func (f *fixture) order(b live.Broker, side, sym, notional string) gate.Decision {
	in := live.OrderIntent{Symbol: sym, Side: side, InstrumentType: live.Equity, NotionalUSD: amt(notional)}
	return f.gate.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1")})
}

// TestLossLimitHaltsAtTheNextOrder: once the equity is more than max_daily_loss_usd below the
// day's start, the next order trips the broker's HALT (reason loss_limit), is denied
// loss_limit without reaching the broker, and both the trip and the crossing are audited and
// told once; later orders are denied halted until an operator resumes.
func TestLossLimitHaltsAtTheNextOrder(t *testing.T) {
	f, eb, told := newLossFixture(t, "")
	if d := f.order(eb, live.Buy, "AAPL", "1000"); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("first order: %s", d.Message())
	}
	eb.set("99499") // 501 below the day's start
	d := f.order(eb, live.Buy, "AAPL", "1000")
	if d.Reason != live.ReasonLossLimit || d.Forwarded {
		t.Fatalf("order after the crossing: reason %s forwarded %v (%s), want a loss_limit denial", d.Reason, d.Forwarded, d.Message())
	}
	if got, want := eb.placed, 1; got != want {
		t.Fatalf("orders at the broker = %d, want %d", got, want)
	}
	a, _ := halt.ReadSentinel(f.root, live.HaltSentinel, live.BrokerScope("paper"))
	if a == nil || !strings.HasPrefix(a.Reason, "loss_limit: daily loss 501 USD > limit 500") {
		t.Fatalf("broker HALT = %+v, want one with reason loss_limit", a)
	}
	var kinds []string
	for _, r := range f.audit.Records() {
		if r.Reason == live.ReasonLossLimit {
			kinds = append(kinds, r.Kind)
		}
	}
	if got, want := strings.Join(kinds, ","), "halt_tripped,loss_limit_crossed,order_rejected"; got != want {
		t.Fatalf("loss_limit records = %s, want %s", got, want)
	}
	if d := f.order(eb, live.Buy, "AAPL", "1000"); d.Reason != live.ReasonHalted {
		t.Fatalf("order while halted: %s, want halted", d.Reason)
	}
	if got := len(*told); got != 1 || !(*told)[0].Tripped || (*told)[0].Gauge.Limit != live.LimitDailyLoss {
		t.Fatalf("OnLossLimit calls = %+v, want one trip of max_daily_loss_usd", *told)
	}
}

// TestLossLimitUnknownEquityFailsClosed: with a loss limit set and the account unreadable, an
// order that adds exposure is denied equity_unknown (never a silent pass), an order that only
// reduces a position still goes, and nothing is halted.
func TestLossLimitUnknownEquityFailsClosed(t *testing.T) {
	f, eb, _ := newLossFixture(t, `{"max_daily_loss_usd": 500}`)
	if d := f.order(eb, live.Buy, "AAPL", "2000"); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("opening order: %s", d.Message())
	}
	eb.mu.Lock()
	eb.err = errors.New("account endpoint down")
	eb.mu.Unlock()
	if d := f.order(eb, live.Buy, "AAPL", "100"); d.Reason != live.ReasonEquityUnknown || d.Forwarded {
		t.Fatalf("increasing order with no equity: %s (%s), want equity_unknown", d.Reason, d.Message())
	}
	if d := f.order(eb, live.Sell, "AAPL", "100"); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("reducing order with no equity: %s, want accepted", d.Message())
	}
	if halt.IsHalted(f.root, "paper") {
		t.Fatal("an unknown equity halted the broker")
	}
}

// TestLossLimitDryRunExplainsWithoutTripping: a what-if (dry run) shows the crossed limit and
// denies, but trips nothing and writes no audit record.
func TestLossLimitDryRunExplainsWithoutTripping(t *testing.T) {
	f, eb, told := newLossFixture(t, "")
	eb.set("100000")
	f.order(eb, live.Buy, "AAPL", "100") // marks the day's start
	eb.set("97000")
	before := len(f.audit.Records())
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: eb, Intent: &in, DryRun: true})
	if d.Reason != live.ReasonLossLimit || d.Loss == nil || d.Loss.Crossed() == nil {
		t.Fatalf("dry run: reason %s loss %+v, want a crossed loss_limit", d.Reason, d.Loss)
	}
	if halt.IsHalted(f.root, "paper") || len(*told) != 0 || len(f.audit.Records()) != before {
		t.Fatal("a dry run tripped, told or recorded")
	}
}

// TestLossLimitWatchTripsWithoutAnOrder: an equity read outside any order (WatchLoss, the
// session's timer) trips the HALT too; the drawdown is measured from the day's peak.
func TestLossLimitWatchTripsWithoutAnOrder(t *testing.T) {
	f, eb, told := newLossFixture(t, `{"max_drawdown_pct": 2}`)
	ctx := context.Background()
	for _, eq := range []string{"100000", "110000", "107900"} { // 1.9 % under the 110000 peak
		eb.set(eq)
		if _, ok := f.gate.WatchLoss(ctx, eb, "paper"); !ok {
			t.Fatal("WatchLoss did not read the limits")
		}
	}
	if halt.IsHalted(f.root, "paper") {
		t.Fatal("halted inside the drawdown limit")
	}
	eb.set("107799") // 2.0009 % under the peak
	l, _ := f.gate.WatchLoss(ctx, eb, "paper")
	if g := l.Crossed(); g == nil || g.Limit != live.LimitDrawdown {
		t.Fatalf("limits = %+v, want the drawdown crossed", l)
	}
	if !halt.IsHalted(f.root, "paper") || len(*told) != 1 {
		t.Fatalf("halted %v, told %d, want a HALT and one call", halt.IsHalted(f.root, "paper"), len(*told))
	}
	f.gate.WatchLoss(ctx, eb, "paper")
	if len(*told) != 1 {
		t.Fatalf("a crossing already halted was told again: %d calls", len(*told))
	}
	if last, ok := f.gate.LastLoss("paper"); !ok || last.Crossed() == nil {
		t.Fatalf("LastLoss = %+v %v, want the crossed reading", last, ok)
	}
	if m, _, err := equitymark.Read(f.root, "paper"); err != nil || m.Peak.String() != "110000" {
		t.Fatalf("mark file: %+v %v, want the 110000 peak", m, err)
	}
}

// TestLossLimitUsesThePaperAccountsBaseline: with the paper broker itself, the gate reads the
// day's start from the paper account's own mark (the one the day P&L shows), not a file.
func TestLossLimitUsesThePaperAccountsBaseline(t *testing.T) {
	f := newFixture(t, lossDoc(`{"max_daily_loss_usd": 500}`))
	if d := f.order(f.paper, live.Buy, "AAPL", "1000"); d.Outcome != live.OutcomeAccepted {
		t.Fatal(d.Message())
	}
	st := f.paper.Snapshot()
	if st.DayStart == nil || st.DayStart.Equity.String() != "100000" {
		t.Fatalf("paper day mark = %+v, want the 100000 start", st.DayStart)
	}
	if _, found, _ := equitymark.Read(f.root, "paper"); found {
		t.Fatal("a mark file was written for the paper account, which keeps its own")
	}
}

// TestLossLimitProperty: no sequence of fills (equity moves), day changes and operator
// resumes can leave a crossed limit without a HALT after the next order or equity read; an
// order at a crossed limit never reaches the broker; and a HALT is never tripped while no
// limit has been crossed since the last resume.
func TestLossLimitProperty(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { lossSequence(t, seed) })
	}
}

func lossSequence(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 29))
	lossLimit, ddPct := money.FromInt(int64(200+rng.IntN(800))), money.FromInt(int64(1+rng.IntN(4)))
	f, eb, _ := newLossFixture(t, fmt.Sprintf(`{"max_daily_loss_usd": %s, "max_drawdown_pct": %s}`, lossLimit, ddPct))
	f.clock.Advance(5 * time.Hour) // 20:00 UTC: a few steps cross midnight
	ctx := context.Background()
	equity := money.FromInt(100000)
	var day string
	var start, peak money.Amount
	crossedSinceResume := false
	for step := 0; step < 40; step++ {
		// A fill: the equity moves by up to ±400 (cents included).
		equity = equity.Add(money.FromFixed(int64(rng.IntN(80001))-40000, 2))
		eb.set(equity.String())
		if rng.IntN(8) == 0 {
			f.clock.Advance(time.Duration(rng.IntN(6)) * time.Hour) // sometimes past UTC midnight
		}
		if rng.IntN(10) == 0 && halt.IsHalted(f.root, "paper") { // an operator resumes
			halt.Clear(f.root, live.HaltSentinel, live.BrokerScope("paper"))
			crossedSinceResume = false
		}
		// The next event: an order (half the time) or an equity read. An order met by a HALT
		// is denied before anything is read; every other event reads the equity.
		isOrder := rng.IntN(2) == 0
		reads := !isOrder || !halt.IsHalted(f.root, "paper")
		// The model: the day's start and peak as a reader of every equity read would see them.
		if d := live.UTCDay(f.clock.Now()); reads && d != day {
			day, start, peak = d, equity, equity
		}
		if reads {
			peak = money.Max(peak, equity)
		}
		crossed := start.Sub(equity).GreaterThan(lossLimit) ||
			peak.Sub(equity).Mul(money.FromInt(100)).GreaterThan(ddPct.Mul(peak))
		crossedSinceResume = crossedSinceResume || crossed
		placedBefore := eb.placed
		if isOrder {
			d := f.order(eb, live.Buy, "AAPL", "10")
			if crossed && (d.Forwarded || d.Verdict == live.Allow) {
				t.Fatalf("step %d: an order at a crossed limit was let through: %s", step, d.Message())
			}
			if crossed && eb.placed != placedBefore {
				t.Fatalf("step %d: the broker saw an order at a crossed limit", step)
			}
		} else {
			f.gate.WatchLoss(ctx, eb, "paper")
		}
		halted := halt.IsHalted(f.root, "paper")
		if crossed && !halted {
			t.Fatalf("step %d: equity %s (day start %s, peak %s) crosses a limit (loss %s, drawdown %s %%) and the broker is not halted",
				step, equity, start, peak, lossLimit, ddPct)
		}
		if halted && !crossedSinceResume {
			t.Fatalf("step %d: halted with no limit crossed since the last resume (equity %s, start %s, peak %s)", step, equity, start, peak)
		}
	}
}

const lossMandateTail = `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 1000},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null,
 "exclude_symbols": ["GME"]}}`
