package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/paper"
)

// fleetHosts is the number of roots (and of fleet hosts) the fleet figure runs.
const fleetHosts = 4

// fleetRoot is one root of the fleet figure: a durable gate, its paper broker and its host.
type fleetRoot struct {
	env  *gateEnv
	p    *paper.Broker
	host *fleet.Fleet
}

// fleetRound is what one round measured: its rate over all roots and its per-order latencies.
type fleetRound struct {
	rate     float64
	p50, p99 float64 // ms
}

// figFleet: four roots, each a durable gate sending in-mandate orders to its paper broker on
// its own goroutine, first local (no fleet), then as four hosts of one in-process fleet (an
// open server on loopback with its own store), in alternating rounds. Each fleet round has
// fresh day counters (fleet.Days) that are closed at its end, and the fleet's count must then
// equal every order sent through it.
func figFleet(c config) ([]Figure, error) {
	pairs, perRoot := c.size(2, 5), c.size(50, 300)
	roots, closeAll, err := fleetRoots(c)
	defer closeAll()
	if err != nil {
		return nil, err
	}
	ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: filepath.Join(c.tmp, "fleet-store")})
	if err != nil {
		return nil, err
	}
	defer ns.Shutdown()
	for i, r := range roots {
		if r.host, err = fleet.Connect(fleet.Options{URL: ns.ClientURL(), Host: fmt.Sprintf("bench-%d", i+1)}); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	day := live.UTCDay(time.Now())
	if _, err := (&fleet.Days{F: roots[0].host}).Count(ctx, "paper", day); err != nil { // the bucket exists
		return nil, fmt.Errorf("fleet count before the first round: %w", err)
	}
	var local, withFleet []fleetRound
	sent := 0
	for range pairs {
		l, err := runFleetRound(roots, nil, perRoot)
		if err != nil {
			return nil, fmt.Errorf("local round: %w", err)
		}
		days := make([]*fleet.Days, len(roots))
		for i, r := range roots {
			days[i] = &fleet.Days{F: r.host}
		}
		f, err := runFleetRound(roots, days, perRoot)
		if err != nil {
			return nil, fmt.Errorf("fleet round: %w", err)
		}
		sent += len(roots) * perRoot
		if err := checkFleetCount(ctx, days, day, sent); err != nil {
			return nil, err
		}
		local, withFleet = append(local, l), append(withFleet, f)
	}
	return fleetFigures(local, withFleet, perRoot), nil
}

// fleetRoots makes the figure's four roots, each with the durable gate the sequential figure
// uses and a paper broker; closeAll closes their stores and hosts.
func fleetRoots(c config) ([]*fleetRoot, func(), error) {
	var roots []*fleetRoot
	closeAll := func() {
		for _, r := range roots {
			if r.host != nil {
				r.host.Close()
			}
			r.env.db.Close()
		}
	}
	for i := range fleetHosts {
		env, err := newGateEnv(c, fmt.Sprintf("fleet-%d", i+1), "paper")
		if err != nil {
			return roots, closeAll, err
		}
		roots = append(roots, &fleetRoot{env: env})
		if roots[i].p, err = newPaper("paper", nil); err != nil {
			return roots, closeAll, err
		}
	}
	return roots, closeAll, nil
}

// runFleetRound sends perRoot orders through each root's gate, the roots at once; with days
// (one per root) each gate reserves its slots in the fleet's count, without it none does.
func runFleetRound(roots []*fleetRoot, days []*fleet.Days, perRoot int) (fleetRound, error) {
	for i, r := range roots {
		r.env.g.Days = nil // never a typed nil: the gate would take it for a fleet
		if days != nil {
			r.env.g.Days = days[i]
		}
	}
	samples := make([][]time.Duration, len(roots))
	errs := make([]error, len(roots))
	var wg sync.WaitGroup
	start := time.Now()
	for i, r := range roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			samples[i], errs[i] = sendOrders(r, perRoot)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for i, d := range days {
		if err := d.Close(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("host %d: closing its day count: %w", i+1, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fleetRound{}, err
	}
	all := slices.Concat(samples...)
	return fleetRound{rate: float64(len(all)) / took.Seconds(), p50: pct(all, 0.50) / 1000, p99: pct(all, 0.99) / 1000}, nil
}

// sendOrders sends n in-mandate orders through r's gate, one after another, timing each; an
// order not accepted, or one whose audit record failed, fails the round.
func sendOrders(r *fleetRoot, n int) ([]time.Duration, error) {
	in := spyOrder()
	out := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		d := r.env.g.Submit(context.Background(), gate.Submission{Broker: r.p, BrokerKey: "paper", Intent: &in})
		out = append(out, time.Since(t0))
		if d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
			return nil, fmt.Errorf("order %d on %s not accepted: %s %v", len(out), r.env.root.Dir(), d.Message(), d.AuditErr)
		}
	}
	return out, nil
}

// checkFleetCount reads the fleet's count of the day through each host: after the leases
// went back it must equal the orders sent through the fleet, else the figure fails.
func checkFleetCount(ctx context.Context, days []*fleet.Days, day string, want int) error {
	if now := live.UTCDay(time.Now()); now != day {
		return fmt.Errorf("the UTC day turned (%s → %s) during the figure: its count is split; run it again", day, now)
	}
	for i, d := range days {
		got, err := d.Count(ctx, "paper", day)
		if err != nil {
			return fmt.Errorf("host %d: reading the fleet's count: %w", i+1, err)
		}
		if got != want {
			return fmt.Errorf("host %d: the fleet counts %d orders on %s, but %d were sent through it", i+1, got, day, want)
		}
	}
	return nil
}

// fleetFigures are the rounds' medians, each with its range.
func fleetFigures(local, withFleet []fleetRound, perRoot int) []Figure {
	of := func(rs []fleetRound, v func(fleetRound) float64) []float64 {
		out := make([]float64, len(rs))
		for i, r := range rs {
			out[i] = v(r)
		}
		return out
	}
	rate := func(r fleetRound) float64 { return r.rate }
	ratio := make([]float64, len(local))
	for i := range local {
		ratio[i] = 100 * withFleet[i].rate / local[i].rate
	}
	lr, fr := of(local, rate), of(withFleet, rate)
	fp50, fp99 := of(withFleet, func(r fleetRound) float64 { return r.p50 }), of(withFleet, func(r fleetRound) float64 { return r.p99 })
	lp50, lp99 := of(local, func(r fleetRound) float64 { return r.p50 }), of(local, func(r fleetRound) float64 { return r.p99 })
	rounds := fmt.Sprintf("%d rounds each, alternating, %d roots × %d orders", len(local), fleetHosts, perRoot)
	return []Figure{
		{Name: "fleet vs local, local (4 roots)", Value: medianOf(lr), Unit: "orders/s", Note: rangeOf(lr, "%.0f") + "; " + rounds},
		{Name: "fleet vs local, fleet (4 hosts)", Value: medianOf(fr), Unit: "orders/s", Note: rangeOf(fr, "%.0f") + "; count checked each round"},
		{Name: "fleet vs local, fleet / local", Value: medianOf(ratio), Unit: "%", Note: rangeOf(ratio, "%.0f") + " of each fleet round over the local round before it; goal ≥ 50 % (issue 32 §2)"},
		{Name: "fleet vs local, fleet p50", Value: medianOf(fp50), Unit: "ms", Note: rangeOf(fp50, "%.2f") + fmt.Sprintf("; local %.2f", medianOf(lp50))},
		{Name: "fleet vs local, fleet p99", Value: medianOf(fp99), Unit: "ms", Note: rangeOf(fp99, "%.2f") + fmt.Sprintf("; local %.2f", medianOf(lp99))},
	}
}

// medianOf is the middle value (the mean of the two middle ones for an even count).
func medianOf(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// rangeOf is "range lo–hi" of v, each in format.
func rangeOf(v []float64, format string) string {
	return fmt.Sprintf("range "+format+"–"+format, slices.Min(v), slices.Max(v))
}
