package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/livetest"
)

// freePort returns a loopback port that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cluster starts a 3-node in-process JetStream cluster and waits for its meta leader. A route
// port freePort found free can be taken by another test before the node binds it (the suite
// runs packages side by side); the nodes are then started again on new ports, up to 3 times.
func cluster(tb testing.TB) *testFleet {
	tb.Helper()
	tf := newTestFleet(tb)
	tf.replicas = 3
	var nodes []*server.Server
	for try := 1; nodes == nil; try++ {
		var err error
		if nodes, err = startNodes(tb, tf.auth); err != nil && (try == 3 || !strings.Contains(err.Error(), "listening")) {
			tb.Fatal(err)
		}
	}
	tf.nodes = nodes
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range nodes {
			if n.JetStreamIsLeader() {
				if err := fleet.Provision(n, tf.auth, tf.replicas, nil, fleet.AuditRetention{}); err != nil {
					tb.Fatal(err)
				}
				return tf
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatal("the cluster elected no meta leader")
	return nil
}

// startNodes starts 3 nodes routed to each other; on an error it stops those that started.
func startNodes(tb testing.TB, auth *fleet.Authority) ([]*server.Server, error) {
	ports := []int{freePort(tb), freePort(tb), freePort(tb)}
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	nodes := make([]*server.Server, 3)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i], errs[i] = fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: tb.TempDir(), Name: fmt.Sprintf("n%d", i+1), Auth: auth,
				Cluster: &fleet.ClusterOptions{Name: "cockpit", Host: "127.0.0.1", Port: ports[i], Routes: routes}})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, n := range nodes {
			if n != nil {
				n.Shutdown()
			}
		}
		return nil, err
	}
	for _, n := range nodes {
		tb.Cleanup(n.Shutdown)
	}
	return nodes, nil
}

// TestFleetClusterLeaderLoss: 4 hosts on a 3-node cluster (replicas 3) send orders; the day
// bucket's stream leader is shut down mid-burst. Orders during the election are denied
// fleet_unavailable (never sent uncounted); the broker never sees more than the cap, and once
// the new leader answers the hosts fill the day to exactly the cap. With a cap of 200 the hosts
// lease blocks of slots while the leader goes: never past the cap, and the count never below
// the orders sent (slots whose answers the election lost may stay counted: the safe side).
func TestFleetClusterLeaderLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster election takes seconds")
	}
	for _, limit := range []int{20, 200} {
		t.Run(fmt.Sprint("cap ", limit), func(t *testing.T) { leaderLoss(t, limit) })
	}
}

func leaderLoss(t *testing.T, limit int) {
	tf := cluster(t)
	nodes := tf.nodes
	hosts := make([]*host, 4)
	for i := range hosts {
		hosts[i] = newHostCap(t, connect(t, tf, fmt.Sprintf("h%d", i+1)), "paper", livetest.Epoch, limit)
	}
	var got tally
	var killed atomic.Bool
	done := make(chan struct{})
	go func() { // the leader goes once 6 orders are in
		defer close(done)
		for range 2000 {
			got.mu.Lock()
			n := got.accepted
			got.mu.Unlock()
			if n >= 6 {
				for _, s := range nodes {
					if s.JetStreamIsStreamLeader(tf.auth.AccountKey(), "KV_"+fleet.DayBucket) {
						s.Shutdown()
						killed.Store(true)
						return
					}
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for _, h := range hosts { // each host sends until the fleet says the day is full
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3000 {
				d := h.buy()
				got.add(d)
				if d.Breach != nil && d.Breach.Limit == live.LimitTradesPerDay {
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	<-done
	if !killed.Load() {
		t.Fatal("the stream leader was never found to shut down")
	}
	placed := 0
	for _, h := range hosts {
		placed += h.broker.Placed()
	}
	t.Logf("accepted %d, fleet_unavailable %d, capped %d", got.accepted, got.fleet, got.capped)
	switch {
	case got.accepted > limit || placed != got.accepted || got.other != nil:
		t.Fatalf("accepted %d, broker placed %d, other outcomes %v; want at most %d, all placed, and nothing else", got.accepted, placed, got.other, limit)
	case got.accepted != limit && limit <= 20:
		t.Fatalf("accepted %d, broker placed %d; want exactly %d", got.accepted, placed, limit)
	case got.accepted != limit:
		// With leases in play a lease or give-back whose answer the election lost can leave
		// slots counted and unused (the safe side, as a lost release of one always could).
		t.Logf("accepted %d of %d: %d slot(s) stayed counted after lost answers", got.accepted, limit, limit-got.accepted)
	}
	if got.fleet == 0 { // a write in flight may ride through a short election (JetStream retries the publish)
		t.Logf("no order was denied fleet_unavailable: the election was over within the writes' retries")
	}
	for _, h := range hosts { // writes whose answers the election lost: give back those that landed
		h.days.Settle(context.Background())
		if err := h.days.Close(context.Background()); err != nil { // and the unused leases
			t.Fatal(err)
		}
	}
	n, err := fleet.Taken(context.Background(), hosts[0].f, "paper", live.UTCDay(livetest.Epoch))
	if err != nil || n < got.accepted {
		t.Fatalf("fleet count = %d, %v; want at least the %d orders sent (a low count lets the fleet pass the cap)", n, err, got.accepted)
	}
	if n > got.accepted { // the safe direction: a write whose answer was lost and cannot be told
		t.Logf("fleet count %d stays above the %d orders sent: %d slot(s) lost their answer in the election", n, got.accepted, n-got.accepted)
	}
}
