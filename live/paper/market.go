// Package paper is cockpit's embedded paper broker: a simulated market per symbol (a seeded
// random walk or a replay of bars), market orders filling at the touch, resting limit orders,
// positions with average price and P&L, cash, idempotent client order ids, and fault injection
// for tests. Given the same seed, clock and calls it behaves identically.
package paper

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"time"

	"cockpit/live/money"
)

// SymbolSpec describes one simulated instrument.
type SymbolSpec struct {
	Symbol    string
	Start     money.Amount // first price
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
	// History is how many recent prices per symbol are kept for charts (default 600).
	History int
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

// Market is a simulated set of symbols. It advances lazily: AdvanceTo steps the simulation
// up to a clock time in fixed increments, so results depend only on the seed and the times.
type Market struct {
	mu      sync.Mutex
	cfg     MarketConfig
	rng     *rand.Rand
	specs   map[string]SymbolSpec
	order   []string
	logPx   map[string]float64
	ticks   map[string]Tick
	history map[string][]money.Amount
	steps   int64
	start   time.Time
	simAt   time.Time
}

const secondsPerYear = 365 * 24 * 3600

// NewMarket builds a market starting at start.
func NewMarket(cfg MarketConfig, start time.Time) (*Market, error) {
	if cfg.Step <= 0 {
		cfg.Step = time.Second
	}
	if cfg.TimeScale <= 0 {
		cfg.TimeScale = 1
	}
	if cfg.History <= 0 {
		cfg.History = 600
	}
	m := &Market{cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), specs: map[string]SymbolSpec{},
		logPx: map[string]float64{}, ticks: map[string]Tick{}, history: map[string][]money.Amount{},
		start: start, simAt: start}
	for _, s := range cfg.Symbols {
		if s.Tick.Sign() <= 0 {
			s.Tick = money.MustParse("0.01")
		}
		if s.Start.Sign() <= 0 {
			return nil, fmt.Errorf("paper market: %s: start price must be positive", s.Symbol)
		}
		if _, dup := m.specs[s.Symbol]; dup {
			return nil, fmt.Errorf("paper market: %s listed twice", s.Symbol)
		}
		m.specs[s.Symbol] = s
		m.order = append(m.order, s.Symbol)
		m.logPx[s.Symbol] = math.Log(s.Start.Float64())
	}
	if cfg.Bars != nil {
		for sym, bars := range cfg.Bars {
			if len(bars) == 0 {
				return nil, fmt.Errorf("paper market: %s has no bars", sym)
			}
			if _, ok := m.specs[sym]; !ok {
				m.specs[sym] = SymbolSpec{Symbol: sym, Start: bars[0].Close, SpreadBps: 5, Tick: money.MustParse("0.01")}
				m.order = append(m.order, sym)
			}
		}
		sort.Strings(m.order)
	}
	for _, sym := range m.order {
		m.setTick(sym, m.priceAt(sym))
	}
	return m, nil
}

// Symbols lists the simulated symbols in a stable order.
func (m *Market) Symbols() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.order...)
}

// AdvanceTo steps the simulation until simulated time covers wall time t.
func (m *Market) AdvanceTo(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	target := m.start.Add(time.Duration(float64(t.Sub(m.start)) * m.cfg.TimeScale))
	for !m.simAt.Add(m.cfg.Step).After(target) {
		m.step()
	}
}

// step moves every symbol one step, in a fixed order, from one random stream.
func (m *Market) step() {
	m.steps++
	m.simAt = m.simAt.Add(m.cfg.Step)
	dt := m.cfg.Step.Seconds() / secondsPerYear
	for _, sym := range m.order {
		if m.cfg.Bars == nil {
			s := m.specs[sym]
			z := m.rng.NormFloat64()
			m.logPx[sym] += (s.Drift-0.5*s.Vol*s.Vol)*dt + s.Vol*math.Sqrt(dt)*z
		}
		m.setTick(sym, m.priceAt(sym))
	}
}

func (m *Market) priceAt(sym string) money.Amount {
	s := m.specs[sym]
	if bars := m.cfg.Bars[sym]; bars != nil {
		return bars[int(m.steps%int64(len(bars)))].Close
	}
	p, err := money.FromFloat(math.Exp(m.logPx[sym]))
	if err != nil || p.Sign() <= 0 {
		p = s.Tick
	}
	p = p.RoundToStep(s.Tick)
	if p.Sign() <= 0 {
		p = s.Tick
	}
	return p
}

func (m *Market) setTick(sym string, last money.Amount) {
	s := m.specs[sym]
	half, _ := money.FromFloat(last.Float64() * s.SpreadBps / 20000)
	half = half.RoundToStep(s.Tick)
	if half.Sign() <= 0 {
		half = s.Tick
	}
	bid := last.Sub(half)
	if bid.Sign() <= 0 {
		bid = s.Tick
	}
	m.ticks[sym] = Tick{Bid: bid, Ask: last.Add(half), Last: last, Time: m.wallTime()}
	h := append(m.history[sym], last)
	if len(h) > m.cfg.History {
		h = h[len(h)-m.cfg.History:]
	}
	m.history[sym] = h
}

// wallTime maps simulated time back to the clock that drives the market.
func (m *Market) wallTime() time.Time {
	return m.start.Add(time.Duration(float64(m.simAt.Sub(m.start)) / m.cfg.TimeScale))
}

// Tick returns a symbol's current top of book.
func (m *Market) Tick(sym string) (Tick, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.ticks[sym]
	return t, ok
}

// History returns up to n recent last prices of sym, oldest first.
func (m *Market) History(sym string, n int) []money.Amount {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.history[sym]
	if n > 0 && len(h) > n {
		h = h[len(h)-n:]
	}
	return append([]money.Amount(nil), h...)
}

// ReadBarsCSV reads bars from CSV with the header time,symbol,open,high,low,close,volume
// (time in RFC 3339). Bars are grouped by symbol and sorted by time.
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
