package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/session"
	"cockpit/tui"
)

// TestTradesPaneAgreesWithTradesJSON (issue 29 §3): on one root after a headless paper run,
// the screen's Trades view (T, drawn from the read model's snapshot) lists every fill
// `cockpit trades --json` lists, with the same time, side, symbol, quantity, price and fee,
// and the same realised total.
func TestTradesPaneAgreesWithTradesJSON(t *testing.T) {
	home := fastHome(t, "")
	if out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "strategy", "--for", "2s"); code != 0 {
		t.Fatalf("run: exit %d %s\n%s", code, errOut, out)
	}
	out, errOut, code := runLive(t, home, nil, "trades", "--broker", "paper", "--json")
	if code != 0 {
		t.Fatalf("trades --json: exit %d %s", code, errOut)
	}
	var cli struct {
		Fills []struct {
			Time, Side, Symbol string
			Qty, Fee           json.Number
			Price              *json.Number
		} `json:"fills"`
		Realized json.Number `json:"realized"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber() // exact decimals, as printed
	if err := dec.Decode(&cli); err != nil {
		t.Fatalf("trades --json: %v\n%s", err, out)
	}
	if len(cli.Fills) == 0 {
		t.Fatalf("the run left no fills to compare:\n%s", out)
	}

	// The owner's screen on the same root: a session's backend, its snapshot the read model's.
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap := s.Backend().Snapshot(context.Background())
	m, err := tui.New(tui.Options{Backend: s.Backend(), Now: time.Now, Theme: "no-color"})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: len(cli.Fills) + 40})
	m.Update(tui.SnapshotMsg{Snapshot: snap, OneOff: true})
	m.Update(tea.KeyPressMsg{Code: 'T', Text: "T"})
	m.Update(tui.TickMsg{})
	screen := ansi.Strip(m.View().Content)

	var rows []string
	for _, l := range strings.Split(screen, "\n") {
		if _, rest, ok := strings.Cut(l, "║ "); ok {
			rows = append(rows, strings.Fields(strings.TrimRight(rest, "║ ")+" ")...)
			rows = append(rows, "\n")
		}
	}
	lines := strings.Split(strings.Join(rows, " "), "\n")
	for i, f := range cli.Fills {
		ts, err := time.Parse(time.RFC3339Nano, f.Time)
		if err != nil {
			t.Fatalf("fill %d time %q: %v", i, f.Time, err)
		}
		px := "?"
		if f.Price != nil {
			px = f.Price.String()
		}
		want := strings.Join([]string{ts.UTC().Format("15:04:05"), f.Side, f.Symbol, f.Qty.String(), px, f.Fee.String()}, " ")
		found := false
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), want) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("fill %d of trades --json (%s) is not a row of the Trades view:\n%s", i, want, screen)
		}
	}
	if want := "realised " + signedText(cli.Realized.String()); !strings.Contains(screen, want) {
		t.Errorf("the Trades view's total lacks %q (trades --json realized %s):\n%s", want, cli.Realized, screen)
	}
}

func signedText(s string) string {
	if s != "0" && !strings.HasPrefix(s, "-") {
		return "+" + s
	}
	return s
}
