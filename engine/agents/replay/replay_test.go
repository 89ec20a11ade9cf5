package replay

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/internal/enginetest"
)

const script = `# a morning, replayed
{"t": 0, "tool": "get_quote", "args": {"symbol": "AAPL"}}
{"t": 1.5, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": "1000", "reason": "replay"}}
{"t": 3, "tool": "place_order", "args": {"symbol": "GME", "side": "buy", "notional": "100"}}

{"t": 4, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": "9000"}}
{"t": 10, "tool": "wire_money", "args": {}}
{"t": 10, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": "100", "approved": true}}
`

func TestReplayPlaysTheScript(t *testing.T) {
	steps, err := Parse(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	f := enginetest.New(t)
	f.Engine.Approver = false
	var waits []time.Duration
	var got []string
	a := &Agent{Steps: steps, Speed: 2,
		Sleep:   func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
		Results: func(s Step, r engine.Result) { got = append(got, s.Tool+" "+string(r.Status)+" "+string(r.Code)) }}
	if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil {
		t.Fatal(err)
	}
	want := []string{"get_quote ok ", "place_order ok ", "place_order denied mandate:exclude_symbols",
		"place_order denied no_approver", "wire_money denied unknown_tool", "place_order denied invalid_args"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantWaits := []time.Duration{750 * time.Millisecond, 750 * time.Millisecond, 500 * time.Millisecond, 3 * time.Second, 0}
	if len(waits) != len(wantWaits) {
		t.Fatalf("waits = %v, want %v", waits, wantWaits)
	}
	for i := range waits {
		if waits[i] != wantWaits[i] {
			t.Errorf("wait %d = %s, want %s", i, waits[i], wantWaits[i])
		}
	}
	if !a.Done() || f.Placed() != 1 {
		t.Errorf("done=%v placed=%d", a.Done(), f.Placed())
	}
}

// TestReplayResumesAfterStop: a stopped turn (a halt) keeps its place in the script.
func TestReplayResumesAfterStop(t *testing.T) {
	steps, _ := Parse(strings.NewReader(script))
	f := enginetest.New(t)
	f.Engine.Approver = false
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	a := &Agent{Steps: steps, Speed: 1, Sleep: func(ctx context.Context, _ time.Duration) error {
		calls++
		if calls == 2 {
			cancel()
			return ctx.Err()
		}
		return nil
	}}
	if err := a.Turn(ctx, f.Engine.NewTurn(a.Name())); err == nil {
		t.Fatal("stopped turn returned no error")
	}
	if a.next != 2 || a.Done() {
		t.Fatalf("stopped at %d, want 2", a.next)
	}
	if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil || !a.Done() {
		t.Fatalf("resume: %v done=%v", err, a.Done())
	}
	if f.Placed() != 1 {
		t.Errorf("placed = %d, want 1 (no step ran twice)", f.Placed())
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"t": 0}`, "line 1: missing tool"},
		{`{"tool": "x", "when": 3}`, `line 1: unknown field "when"`},
		{"\n[1]", "line 2: want a JSON object"},
		{`{"tool": "x", "args": [1]}`, "line 1: args must be an object"},
		{`{"tool": "x", "t": -1}`, "line 1: t = -1"},
		{`{"tool": "x", "ts": "yesterday"}`, `line 1: ts = "yesterday"`},
		{`{"tool": "x", "tool": "y"}`, "line 1:"},
		{`{"tool": "x"`, "line 1:"},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
	steps, err := Parse(strings.NewReader(`{"ts": "2026-06-01T15:00:00Z", "tool": "a"}
{"ts": "2026-06-01T15:00:02.5Z", "tool": "b"}`))
	if err != nil || steps[1].At != 2500*time.Millisecond {
		t.Errorf("ts offsets: %v %v", steps, err)
	}
}
