package faults

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/session"
	"cockpit/store"
)

// roomyMandate lets every test order through unless a test narrows it.
func roomyMandate(tradesPerDay string, controls string) string {
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": `+tradesPerDay, 1)
	doc = strings.Replace(doc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`, 1)
	doc = strings.Replace(doc, `"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`, 1)
	if controls != "" {
		doc = strings.TrimSuffix(strings.TrimSpace(doc), "}") + `, "controls": ` + controls + `}`
	}
	return doc
}

// openStore opens root's cockpit.db anchored as a session anchors it.
func openStore(tb testing.TB, root live.Root) *store.DB {
	tb.Helper()
	db, err := store.Open(filepath.Join(root.Dir(), "cockpit.db"))
	if err != nil {
		tb.Fatal(err)
	}
	db.SetAnchor(filepath.Join(root.Dir(), store.AnchorFile))
	db.AnchorEvery = session.AnchorEvery
	return db
}

// durableRoot is a runtime root with a store and a mandate committed into it for "paper".
func durableRoot(tb testing.TB, doc string) live.Root {
	tb.Helper()
	root := livetest.Root(tb)
	db := openStore(tb, root)
	livetest.CommitTo(tb, db, root, "paper", doc, time.Now())
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return root
}

func newPaper(tb testing.TB, faults *paper.Faults) *paper.Broker {
	tb.Helper()
	p, err := paper.New(paper.Config{Key: "paper", Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()},
		Cash: money.MustParse("1e12"), Faults: faults})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func notional(n string) live.OrderIntent {
	a := money.MustParse(n)
	return live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &a}
}

func quantity(q string) live.OrderIntent {
	a := money.MustParse(q)
	return live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, Quantity: &a}
}

// helper re-runs this test binary as a helper process (name: the Test function to run).
func helper(name string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// gateOn is a durable gate on root's store.
func gateOn(db *store.DB, root live.Root) *gate.Gate {
	return &gate.Gate{Root: root, Audit: db, Journal: db, Mandates: db}
}

var ctx = context.Background()
