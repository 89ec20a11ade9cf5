package mcpbroker_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/mcpbroker"
	"cockpit/live/mcpbroker/mcppaper"
	"cockpit/live/paper"
)

// rig is a paper broker served over the in-memory transport under a profile, a client
// connected to it, and a gate over the client.
type rig struct {
	root  live.Root
	clock *livetest.Clock
	paper *paper.Broker
	mb    *mcpbroker.Broker
	gate  *gate.Gate
	audit *auditsink.Memory
}

func newRig(tb testing.TB, key, profile string, o mcppaper.Options) *rig {
	tb.Helper()
	return newRigDoc(tb, key, profile, o, "")
}

// newRigDoc is newRig with a mandate document (livetest.MandateDoc when empty).
func newRigDoc(tb testing.TB, key, profile string, o mcppaper.Options, doc string) *rig {
	tb.Helper()
	r := &rig{root: livetest.Root(tb), clock: livetest.NewClock(livetest.Epoch), audit: &auditsink.Memory{}}
	p, err := paper.New(paper.Config{Key: key, Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: r.clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	r.paper = p
	o.Now = r.clock.Now
	srv, err := mcppaper.New(p, profile, o)
	if err != nil {
		tb.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	r.mb, err = mcpbroker.Connect(ctx, ct, mcpbroker.Options{Key: key, Profile: mcpbroker.ProfileFor(profile, key), Mode: "paper", Now: r.clock.Now})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.mb.Close() })
	livetest.Commit(tb, r.root, key, doc, r.clock.Now())
	r.gate = &gate.Gate{Root: r.root, Now: r.clock.Now, Audit: r.audit, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(r.root)}
	return r
}
