// Package paper is cockpit's embedded paper broker: a simulated market per symbol (a seeded
// random walk or a replay of bars), market orders filling at the touch, resting limit orders,
// positions with average price and P&L, cash, idempotent client order ids, and fault injection
// for tests.
//
// Prices are a pure function of the seed, the symbol and the time: the random walk is a
// Brownian path evaluated by bisection from hashed normal draws, so any process, before or
// after a restart, sees the same price at the same moment without replaying history.
package paper

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"cockpit/live/money"
)

// SymbolSpec describes one simulated instrument.
type SymbolSpec struct {
	Symbol    string
	Start     money.Amount // price at the market's start
	Drift     float64      // annualised drift of the log price
	Vol       float64      // annualised volatility of the log price
	SpreadBps float64      // bid/ask spread in basis points of the price
	Tick      money.Amount // price increment (default 0.01)
}

// MarketConfig configures the simulation.
type MarketConfig struct {
	Seed    int64
	Symbols []SymbolSpec
	Step    time.Duration // simulated time per step (default 1 s)
	// TimeScale speeds the market up: simulated seconds per wall-clock second (default 1).
	TimeScale float64
	// Bars, when set, replays these bars instead of the random walk (one bar per step, looping).
	Bars map[string][]Bar
}

// Bar is one OHLCV bar of a replay.
type Bar struct {
	Time                   time.Time
	Open, High, Low, Close money.Amount
	Volume                 money.Amount
}

// Tick is a symbol's simulated top of book at one moment.
type Tick struct {
	Bid, Ask, Last money.Amount
	Time           time.Time
}

// Market is a simulated set of symbols starting at a fixed moment. It holds no history: the
// price at any time is computed from the seed.
type Market struct {
	cfg   MarketConfig
	specs map[string]SymbolSpec
	index map[string]uint64
	order []string
	start time.Time

	mu    sync.Mutex
	cache map[string]cachedTick // the last computed tick per symbol
}

type cachedTick struct {
	step uint64
	tick Tick
}

const (
	secondsPerYear = 365 * 24 * 3600
	horizonLevels  = 40 // the walk is defined on 2^40 steps (35,000 years of one-second steps)
)

// NewMarket builds a market whose step 0 is at start.
func NewMarket(cfg MarketConfig, start time.Time) (*Market, error) {
	if cfg.Step <= 0 {
		cfg.Step = time.Second
	}
	if cfg.TimeScale <= 0 {
		cfg.TimeScale = 1
	}
	m := &Market{cfg: cfg, specs: map[string]SymbolSpec{}, index: map[string]uint64{}, start: start,
		cache: map[string]cachedTick{}}
	add := func(s SymbolSpec) error {
		if s.Tick.Sign() <= 0 {
			s.Tick = money.MustParse("0.01")
		}
		if s.Start.Sign() <= 0 {
			return fmt.Errorf("paper market: %s: start price must be positive", s.Symbol)
		}
		if _, dup := m.specs[s.Symbol]; dup {
			return fmt.Errorf("paper market: %s listed twice", s.Symbol)
		}
		m.specs[s.Symbol] = s
		m.order = append(m.order, s.Symbol)
		return nil
	}
	for _, s := range cfg.Symbols {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	for sym, bars := range cfg.Bars {
		if len(bars) == 0 {
			return nil, fmt.Errorf("paper market: %s has no bars", sym)
		}
		if _, ok := m.specs[sym]; !ok {
			if err := add(SymbolSpec{Symbol: sym, Start: bars[0].Close, SpreadBps: 5}); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(m.order)
	for _, sym := range m.order {
		h := fnv.New64a()
		h.Write([]byte(sym))
		m.index[sym] = h.Sum64()
	}
	return m, nil
}

// Start returns the moment of step 0.
func (m *Market) Start() time.Time { return m.start }

// Symbols lists the simulated symbols in a stable order.
func (m *Market) Symbols() []string { return append([]string(nil), m.order...) }

// step returns the simulation step at wall time t (never negative).
func (m *Market) step(t time.Time) uint64 {
	d := t.Sub(m.start)
	if d <= 0 {
		return 0
	}
	return uint64(float64(d) * m.cfg.TimeScale / float64(m.cfg.Step))
}

// stepTime maps a step back to wall time.
func (m *Market) stepTime(n uint64) time.Time {
	return m.start.Add(time.Duration(float64(n) * float64(m.cfg.Step) / m.cfg.TimeScale))
}

// TickAt returns a symbol's top of book at wall time t.
func (m *Market) TickAt(sym string, t time.Time) (Tick, bool) {
	s, ok := m.specs[sym]
	if !ok {
		return Tick{}, false
	}
	n := m.step(t)
	m.mu.Lock()
	c, hit := m.cache[sym]
	m.mu.Unlock()
	if hit && c.step == n {
		return c.tick, true
	}
	last := m.priceAtStep(sym, s, n)
	half, _ := money.FromFloat(last.Float64() * s.SpreadBps / 20000)
	half = half.RoundToStep(s.Tick)
	if half.Sign() <= 0 {
		half = s.Tick
	}
	bid := last.Sub(half)
	if bid.Sign() <= 0 {
		bid = s.Tick
	}
	tk := Tick{Bid: bid, Ask: last.Add(half), Last: last, Time: m.stepTime(n)}
	m.mu.Lock()
	m.cache[sym] = cachedTick{step: n, tick: tk}
	m.mu.Unlock()
	return tk, true
}

// History returns n last prices of sym sampled every `every` up to t, oldest first.
func (m *Market) History(sym string, t time.Time, n int, every time.Duration) []money.Amount {
	s, ok := m.specs[sym]
	if !ok || n <= 0 {
		return nil
	}
	out := make([]money.Amount, n)
	for i := 0; i < n; i++ {
		at := t.Add(-time.Duration(n-1-i) * every)
		out[i] = m.priceAtStep(sym, s, m.step(at))
	}
	return out
}

func (m *Market) priceAtStep(sym string, s SymbolSpec, n uint64) money.Amount {
	if bars := m.cfg.Bars[sym]; bars != nil {
		return bars[int(n%uint64(len(bars)))].Close
	}
	dt := m.cfg.Step.Seconds() / secondsPerYear
	logPx := math.Log(s.Start.Float64()) + (s.Drift-0.5*s.Vol*s.Vol)*dt*float64(n) +
		s.Vol*math.Sqrt(dt)*m.brownian(m.index[sym], n)
	p, err := money.FromFloat(math.Exp(logPx))
	if err != nil || p.Sign() <= 0 {
		return s.Tick
	}
	if p = p.RoundToStep(s.Tick); p.Sign() <= 0 {
		p = s.Tick
	}
	return p
}

// brownian returns W(n) of a standard random walk with unit variance per step, evaluated by
// bisection: W(0) = 0, W(2^40) is drawn, and every midpoint is drawn given its interval's
// ends, each draw from a hash of (seed, symbol, interval). Cost: 40 draws per evaluation.
func (m *Market) brownian(sym, n uint64) float64 {
	lo, hi := uint64(0), uint64(1)<<horizonLevels
	wlo := 0.0
	whi := math.Sqrt(float64(hi)) * m.normal(sym, 0, hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		wmid := (wlo+whi)/2 + math.Sqrt(float64(hi-lo)/4)*m.normal(sym, lo, hi)
		if n < mid {
			hi, whi = mid, wmid
		} else {
			lo, wlo = mid, wmid
		}
	}
	if n == hi {
		return whi
	}
	return wlo
}

// normal is a standard normal draw keyed by (seed, symbol, interval) (Box–Muller on splitmix64).
func (m *Market) normal(sym, lo, hi uint64) float64 {
	x := splitmix(uint64(m.cfg.Seed) ^ splitmix(sym^splitmix(lo^splitmix(hi))))
	u1 := (float64(x>>11) + 0.5) / (1 << 53)
	u2 := (float64(splitmix(x)>>11) + 0.5) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ReadBarsCSV reads bars from CSV with the header time,symbol,open,high,low,close,volume
// (time in RFC 3339; lines starting with # are comments). Bars are grouped by symbol and
// sorted by time.
func ReadBarsCSV(r io.Reader) (map[string][]Bar, error) {
	sc := bufio.NewScanner(r)
	out := map[string][]Bar{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, ",")
		if f[0] == "time" {
			continue
		}
		if len(f) != 7 {
			return nil, fmt.Errorf("bars line %d: %d fields, want 7 (time,symbol,open,high,low,close,volume)", line, len(f))
		}
		t, err := time.Parse(time.RFC3339, f[0])
		if err != nil {
			return nil, fmt.Errorf("bars line %d: time %q: %v", line, f[0], err)
		}
		var nums [5]money.Amount
		for i := range nums {
			if nums[i], err = money.Parse(f[2+i]); err != nil {
				return nil, fmt.Errorf("bars line %d: field %d %q: %v", line, 3+i, f[2+i], err)
			}
		}
		if nums[3].Sign() <= 0 {
			return nil, fmt.Errorf("bars line %d: close %s must be positive", line, nums[3])
		}
		sym := strings.ToUpper(strings.TrimSpace(f[1]))
		out[sym] = append(out[sym], Bar{Time: t, Open: nums[0], High: nums[1], Low: nums[2], Close: nums[3], Volume: nums[4]})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for sym := range out {
		bars := out[sym]
		sort.SliceStable(bars, func(i, j int) bool { return bars[i].Time.Before(bars[j].Time) })
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bars: no data")
	}
	return out, nil
}
