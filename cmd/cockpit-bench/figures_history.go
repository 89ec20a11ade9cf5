package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/session"
	"cockpit/store"
)

// historySizes are the pasts of settled orders the history figures compare (issue 32: an
// order costs the same on day 300 as on day 1): a fresh root, 10,000 and 100,000 orders.
func historySizes(c config) []int {
	if c.quick {
		return []int{0, 500, 2_000}
	}
	return []int{0, 10_000, 100_000}
}

// seedRoot writes n settled orders of "paper" into the root's store (journal rows, audit
// events, the paper account's rows, a resolved review item per 20 orders), ending an hour ago.
func seedRoot(root live.Root, n int) error {
	db, err := store.Open(filepath.Join(root.Dir(), "cockpit.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	return db.SeedHistory(context.Background(), store.History{Broker: "paper", Orders: n, Before: time.Now().Add(-time.Hour), Paper: true})
}

// orderer places one in-mandate order and says how long it took.
type orderer func(i int) (time.Duration, error)

// alternate runs each size's orderer in turns of rounds × per orders (sizes taking turns, so
// the machine's load falls on all of them alike) and returns each size's samples.
func alternate(sizes []int, run []orderer, rounds, per int) ([][]time.Duration, error) {
	samples := make([][]time.Duration, len(sizes))
	for r := range rounds {
		for k := range sizes {
			for i := range per {
				took, err := run[k](r*per + i)
				if err != nil {
					return nil, fmt.Errorf("history %d, order %d: %w", sizes[k], r*per+i, err)
				}
				samples[k] = append(samples[k], took)
			}
		}
	}
	return samples, nil
}

// historyFigures are p50 and p99 per size and the ratio of the largest size's p50 to the first's.
func historyFigures(what string, sizes []int, samples [][]time.Duration) []Figure {
	var figs []Figure
	p50 := make([]float64, len(sizes))
	for k, n := range sizes {
		p50[k] = pct(samples[k], 0.50) / 1000
		note := fmt.Sprintf("%d orders, taking turns with the other sizes", len(samples[k]))
		figs = append(figs, Figure{Name: fmt.Sprintf("%s, history %d orders, p50", what, n), Value: p50[k], Unit: "ms", Note: note},
			Figure{Name: fmt.Sprintf("%s, history %d orders, p99", what, n), Value: pct(samples[k], 0.99) / 1000, Unit: "ms"})
	}
	last := len(sizes) - 1
	return append(figs, Figure{Name: fmt.Sprintf("%s, p50 at %d / p50 at %d", what, sizes[last], sizes[0]), Value: p50[last] / p50[0], Unit: "×",
		Note: "goal ≤ 1.2"})
}

// figHistoryGate: the durable gate to a paper broker saved in the same store, as a session
// wires it, at each history size.
func figHistoryGate(c config) ([]Figure, error) {
	sizes := historySizes(c)
	run := make([]orderer, len(sizes))
	for k, n := range sizes {
		env, err := newGateEnv(c, fmt.Sprintf("history-gate-%d", n), "paper")
		if err != nil {
			return nil, err
		}
		defer env.db.Close()
		if err := env.db.SeedHistory(context.Background(), store.History{Broker: "paper", Orders: n, Before: time.Now().Add(-time.Hour), Paper: true}); err != nil {
			return nil, err
		}
		p, err := paper.New(paper.Config{Key: "paper", Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()},
			Cash: money.MustParse("1e12"), Store: env.db.PaperStore("paper")})
		if err != nil {
			return nil, err
		}
		if err := p.Save(); err != nil {
			return nil, err
		}
		in := spyOrder()
		run[k] = func(int) (time.Duration, error) {
			t0 := time.Now()
			d := env.g.Submit(context.Background(), gate.Submission{Broker: p, Intent: &in, Actor: live.Agent("bench", "bench")})
			if d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
				return 0, fmt.Errorf("not accepted: %s %v", d.Message(), d.AuditErr)
			}
			return time.Since(t0), nil
		}
	}
	samples, err := alternate(sizes, run, c.size(2, 10), c.size(20, 60))
	if err != nil {
		return nil, err
	}
	return historyFigures("durable gate + saved paper account", sizes, samples), nil
}

// mcpRoot is a paper root for serve-mcp: a config with ample cash and the bench mandate
// committed and recorded, over n settled orders.
func mcpRoot(c config, name string, n int) (live.Root, error) {
	root, err := live.NewRoot(filepath.Join(c.tmp, name))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(root.Dir(), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root.Dir(), "config.toml"), []byte("[paper]\ncash = \"1000000000\"\n"), 0o600); err != nil {
		return "", err
	}
	if err := seedRoot(root, n); err != nil {
		return "", err
	}
	db, err := store.Open(filepath.Join(root.Dir(), "cockpit.db"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	now := time.Now()
	res, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: root, Broker: "paper", Document: []byte(benchMandate),
		Source: "cockpit-bench", ConsentAck: true, Now: now, SessionID: "bench"})
	if err != nil {
		return "", err
	}
	return root, db.Record(context.Background(), mandatefile.CommitRecord(now, live.Operator("bench", "bench"), "bench", "bench", res))
}

// mcpServer is a session opened as `cockpit serve-mcp` opens it, its MCP server, and a client
// connected over the in-memory transport.
type mcpServer struct {
	s     *session.Session
	cs    *mcp.ClientSession
	stop  context.CancelFunc
	ready time.Duration // from opening the session to the client's initialize answered
}

func openMCP(root live.Root) (*mcpServer, error) {
	t0 := time.Now()
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: root, Agent: "none", Approvals: "none", Mode: "serve-mcp"})
	if err != nil {
		return nil, err
	}
	srv, err := mcpserve.New(s.Engine())
	if err != nil {
		s.Close()
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	go s.Run(ctx)
	ct, st := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cockpit-bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		stop()
		s.Close()
		return nil, err
	}
	return &mcpServer{s: s, cs: cs, stop: stop, ready: time.Since(t0)}, nil
}

func (m *mcpServer) close() {
	m.cs.Close()
	m.stop()
	m.s.Close()
}

// order places one share of AAPL through the server's place_order tool, buying and selling in
// turn so the position stays inside the caps.
func (m *mcpServer) order(i int) (time.Duration, error) {
	side := []string{"buy", "sell"}[i%2]
	args := map[string]any{"symbol": "AAPL", "side": side, "quantity": 1, "reason": "cockpit-bench"}
	t0 := time.Now()
	res, err := m.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "place_order", Arguments: args})
	took := time.Since(t0)
	if err != nil {
		return 0, err
	}
	var out map[string]any
	text := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError || out["status"] != "ok" {
		return 0, fmt.Errorf("%s order: %s", side, text)
	}
	return took, nil
}

// figHistoryMCP: in-mandate orders through `cockpit serve-mcp`'s session and MCP server (the
// in-memory transport in place of stdio) at each history size, and the session's start-up to
// a connected client.
func figHistoryMCP(c config) ([]Figure, error) {
	sizes := historySizes(c)
	run := make([]orderer, len(sizes))
	var figs []Figure
	for k, n := range sizes {
		root, err := mcpRoot(c, fmt.Sprintf("history-mcp-%d", n), n)
		if err != nil {
			return nil, err
		}
		m, err := openMCP(root)
		if err != nil {
			return nil, err
		}
		defer m.close()
		<-m.s.StoreChecked() // the first order would wait for it: it is start-up, not an order
		figs = append(figs, Figure{Name: fmt.Sprintf("serve-mcp start-up to a connected client, history %d orders", n),
			Value: float64(m.ready.Microseconds()) / 1000, Unit: "ms", Note: "session opened, client initialized"})
		run[k] = m.order
	}
	samples, err := alternate(sizes, run, c.size(2, 10), c.size(20, 60))
	if err != nil {
		return figs, err
	}
	return append(historyFigures("serve-mcp order", sizes, samples), figs...), nil
}
