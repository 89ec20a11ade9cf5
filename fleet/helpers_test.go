package fleet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// testFleet is an embedded fleet server (or a cluster) with an authority, and the identities
// it issued to the test's hosts.
type testFleet struct {
	auth     *fleet.Authority
	nodes    []*server.Server
	replicas int
	port     int    // a restartable server's fixed port
	dir      string // and its data

	mu    sync.Mutex
	ids   map[string]*fleet.Identity
	creds map[string][]byte // each identity's creds file
}

// ClientURL is every node's client URL, comma-separated.
func (tf *testFleet) ClientURL() string {
	var urls []string
	for _, n := range tf.nodes {
		urls = append(urls, n.ClientURL())
	}
	return strings.Join(urls, ",")
}

func newTestFleet(tb testing.TB) *testFleet {
	tb.Helper()
	a, err := fleet.NewAuthority()
	if err != nil {
		tb.Fatal(err)
	}
	return &testFleet{auth: a, replicas: 1, ids: map[string]*fleet.Identity{}, creds: map[string][]byte{}}
}

// serve starts a one-node embedded JetStream server with an authority on a free loopback port.
func serve(tb testing.TB) *testFleet {
	tb.Helper()
	tf := newTestFleet(tb)
	ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: tb.TempDir(), Auth: tf.auth})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(ns.Shutdown)
	tf.nodes = []*server.Server{ns}
	return tf
}

// restartable is a one-node fleet on a fixed port and data directory; start (again) returns
// the server's shutdown.
func restartable(tb testing.TB) *testFleet {
	tb.Helper()
	tf := newTestFleet(tb)
	tf.port, tf.dir = freePort(tb), tb.TempDir()
	return tf
}

func (tf *testFleet) start(tb testing.TB) func() {
	tb.Helper()
	ns, err := fleet.Serve(fleet.ServeOptions{Port: tf.port, StoreDir: tf.dir, Auth: tf.auth, Peers: tf.peers()})
	if err != nil {
		tb.Fatal(err)
	}
	tf.mu.Lock()
	tf.nodes = []*server.Server{ns}
	tf.mu.Unlock()
	return ns.Shutdown
}

// url is a restartable fleet's URL.
func (tf *testFleet) url() string { return "nats://127.0.0.1:" + itoa(tf.port) }

func (tf *testFleet) peers() []fleet.Peer {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	var out []fleet.Peer
	for name, id := range tf.ids {
		p, err := tf.auth.SignPeer(name, id.Key(), time.Now())
		if err == nil {
			out = append(out, p)
		}
	}
	return out
}

// identity issues (once per name) a host's credentials and lists it as a peer.
func (tf *testFleet) identity(tb testing.TB, name string) *fleet.Identity {
	tb.Helper()
	tf.mu.Lock()
	id := tf.ids[name]
	tf.mu.Unlock()
	if id != nil {
		return id
	}
	c, err := tf.auth.Issue(name)
	if err != nil {
		tb.Fatal(err)
	}
	if id, err = fleet.ParseIdentity(c.Data); err != nil {
		tb.Fatal(err)
	}
	tf.mu.Lock()
	tf.ids[name] = id
	tf.creds[name] = c.Data
	nodes := tf.nodes
	tf.mu.Unlock()
	if len(nodes) > 0 {
		p, err := tf.auth.SignPeer(name, id.Key(), time.Now())
		if err == nil {
			err = fleet.Provision(nodes[0], tf.auth, tf.replicas, []fleet.Peer{p}, fleet.AuditRetention{})
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return id
}

// raw is a plain NATS connection with host name's credentials (an attacker holding them, or
// the nats CLI); async errors (permission violations) are collected.
func (tf *testFleet) raw(tb testing.TB, name string) (*nats.Conn, *violations) {
	tb.Helper()
	tf.identity(tb, name)
	path := filepath.Join(tb.TempDir(), name+".creds")
	tf.mu.Lock()
	err := os.WriteFile(path, tf.creds[name], 0o600)
	tf.mu.Unlock()
	if err != nil {
		tb.Fatal(err)
	}
	v := &violations{}
	nc, err := nats.Connect(tf.ClientURL(), nats.UserCredentials(path), nats.CustomInboxPrefix("_INBOX."+name),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { v.add(err) }))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	return nc, v
}

// violations collects a raw connection's async errors.
type violations struct {
	mu   sync.Mutex
	errs []string
}

func (v *violations) add(err error) {
	v.mu.Lock()
	v.errs = append(v.errs, err.Error())
	v.mu.Unlock()
}

// saw reports whether a permission violation naming subject was reported.
func (v *violations) saw(subject string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, e := range v.errs {
		if strings.Contains(e, "Permissions Violation") && strings.Contains(e, subject) {
			return true
		}
	}
	return false
}

// connect joins the fleet as host name, with that host's credentials.
func connect(tb testing.TB, tf *testFleet, name string) *fleet.Fleet {
	tb.Helper()
	return connectAt(tb, tf, tf.ClientURL(), name)
}

// connectAt joins at url (a restartable fleet's, which may be down).
func connectAt(tb testing.TB, tf *testFleet, url, name string) *fleet.Fleet {
	tb.Helper()
	return connectWith(tb, tf, url, name, nil)
}

// alerts collects a host's fleet alerts.
type alerts struct {
	mu   sync.Mutex
	list []fleet.Alert
}

func (a *alerts) add(x fleet.Alert) {
	a.mu.Lock()
	a.list = append(a.list, x)
	a.mu.Unlock()
}

// of returns the alerts of one kind so far.
func (a *alerts) of(kind string) []fleet.Alert {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []fleet.Alert
	for _, x := range a.list {
		if x.Kind == kind {
			out = append(out, x)
		}
	}
	return out
}

// wait waits (10 s at most) for an alert of kind whose text holds want.
func (a *alerts) wait(tb testing.TB, kind, want string) {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, x := range a.of(kind) {
			if strings.Contains(x.Text, want) {
				return
			}
		}
	}
	var texts []string
	for _, x := range a.of(kind) {
		texts = append(texts, x.Text)
	}
	tb.Fatalf("no %s alert with %q; alerts: %q", kind, want, texts)
}

// connectAlerting joins as name with its alerts collected.
func connectAlerting(tb testing.TB, tf *testFleet, name string) (*fleet.Fleet, *alerts) {
	tb.Helper()
	al := &alerts{}
	return connectWith(tb, tf, tf.ClientURL(), name, al.add), al
}

func connectWith(tb testing.TB, tf *testFleet, url, name string, onAlert func(fleet.Alert)) *fleet.Fleet {
	tb.Helper()
	f, err := fleet.Connect(fleet.Options{URL: url, Identity: tf.identity(tb, name), Replicas: tf.replicas, OnAlert: onAlert})
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
