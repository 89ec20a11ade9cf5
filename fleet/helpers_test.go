package fleet_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// serve starts a one-node embedded JetStream server on a free loopback port.
func serve(tb testing.TB) *server.Server {
	tb.Helper()
	ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ns.Shutdown)
	return ns
}

// connect joins the fleet at url as host name.
func connect(tb testing.TB, url, name string, replicas int) *fleet.Fleet {
	tb.Helper()
	f, err := fleet.Connect(fleet.Options{URL: url, Host: name, Replicas: replicas})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Close)
	return f
}

// counted is a broker that counts what it accepted.
type counted struct {
	live.Broker
	mu       sync.Mutex
	placed   int
	reject   bool
	children int // legs the broker reports created with each order
}

func (c *counted) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	c.mu.Lock()
	reject := c.reject
	c.mu.Unlock()
	if reject {
		return live.Order{}, &live.BrokerError{Class: live.ErrRejected, Msg: "test rejects"}
	}
	o, err := c.Broker.PlaceOrder(ctx, r)
	if err == nil {
		c.mu.Lock()
		c.placed++
		o.Children = c.children
		c.mu.Unlock()
	}
	return o, err
}

func (c *counted) Placed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.placed
}

// host is one cockpit of a fleet: its own root, paper broker, journal and gate.
type host struct {
	name   string
	root   live.Root
	broker *counted
	gate   *gate.Gate
	key    string
	f      *fleet.Fleet
	days   *fleet.Days
}

// newHost commits the test mandate (cap 20 a day) for key on a fresh root and wires a gate
// whose day count is the fleet's.
func newHost(tb testing.TB, f *fleet.Fleet, key string, now time.Time) *host {
	tb.Helper()
	clock := livetest.NewClock(now)
	root := livetest.Root(tb)
	livetest.Commit(tb, root, key, "", clock.Now())
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	h := &host{name: f.Host(), root: root, broker: &counted{Broker: p}, key: key, f: f, days: &fleet.Days{F: f}}
	h.gate = &gate.Gate{Root: root, Now: clock.Now, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{},
		Mandates: livetest.Ledger(root), Days: h.days}
	return h
}

func (h *host) buy() gate.Decision {
	n := money.MustParse("100")
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: &n}
	return h.gate.Submit(context.Background(), gate.Submission{Broker: h.broker, BrokerKey: h.key, Intent: &in,
		Actor: live.Agent("test", h.name)})
}

// tally counts a burst's outcomes.
type tally struct {
	mu       sync.Mutex
	accepted int
	capped   int // max_trades_per_day breaches
	fleet    int // fleet_unavailable denials
	other    map[string]int
}

func (t *tally) add(d gate.Decision) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case d.Outcome == live.OutcomeAccepted:
		t.accepted++
	case d.Breach != nil && d.Breach.Limit == live.LimitTradesPerDay:
		t.capped++
	case d.Reason == live.ReasonFleetUnavailable:
		t.fleet++
	default:
		if t.other == nil {
			t.other = map[string]int{}
		}
		t.other[fmt.Sprint(d.Outcome, " ", d.Reason, " ", d.Message())]++
	}
}

// burst sends n orders from each host at once.
func burst(hosts []*host, n int, t *tally) {
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				t.add(h.buy())
			}
		}()
	}
	wg.Wait()
}
