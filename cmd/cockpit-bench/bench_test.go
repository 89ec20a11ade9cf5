package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"cockpit/fleet"
	"cockpit/live"
)

// TestQuickReportsEveryFigure runs `cockpit-bench --quick --json` once: every step reports its
// figures, each present and positive, and nothing failed.
func TestQuickReportsEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole quick bench")
	}
	var out, errOut bytes.Buffer
	code := run([]string{"--quick", "--json"}, &out, &errOut)
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("exit %d, output is not a report: %v\n%s\n%s", code, err, out.String(), errOut.String())
	}
	if code != 0 || len(rep.Errors) > 0 {
		t.Fatalf("exit %d, errors %v", code, rep.Errors)
	}
	want := []string{"check --batch", "CheckMandate per call", "position rows", "one JSONL line", "redaction, nested payload",
		"scanner", "durable gate, sequential", "durable gate, sequential, p99", "4 agents on 4 brokers", "HALT → first cancel",
		"HALT → verified FLAT", "audit append", "audit verify", "screen page query", "View()",
		"durable gate + saved paper account, history", "serve-mcp order, history", "serve-mcp start-up to a connected client",
		"start-up to first frame", "start-up to trading", "fsync probe, p50", "fsync probe, p99", "two-fsync bound",
		"durable gate / two-fsync bound", "fleet vs local, local (4 roots)", "fleet vs local, fleet (4 hosts)",
		"fleet vs local, fleet / local", "fleet vs local, fleet p50", "fleet vs local, fleet p99", "peak RSS"}
	for _, w := range want {
		found := false
		for _, f := range rep.Figures {
			if len(f.Name) >= len(w) && f.Name[:len(w)] == w {
				found = true
				if !(f.Value > 0) {
					t.Errorf("%s = %v %s, want a positive number", f.Name, f.Value, f.Unit)
				}
			}
		}
		if !found {
			t.Errorf("no figure %q in the report", w)
		}
	}
	for _, f := range rep.Figures {
		if !(f.Value > 0) {
			t.Errorf("%s = %v, want a positive number", f.Name, f.Value)
		}
	}
}

// TestCheckFleetCount: the fleet figure's count check passes only when the fleet counts
// exactly the orders sent through it (three slots reserved, leases returned), and names the
// host and both numbers when it does not.
func TestCheckFleetCount(t *testing.T) {
	ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	f, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Host: "bench-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	day := live.UTCDay(time.Now())
	d := &fleet.Days{F: f}
	for range 3 {
		if _, _, err := d.ReserveSlot(ctx, "paper", day, 1_000_000); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		want    int
		wantErr string
	}{
		{3, ""},
		{2, "host 1: the fleet counts 3 orders"},
		{4, "but 4 were sent"},
	}
	for _, tt := range tests {
		err := checkFleetCount(ctx, []*fleet.Days{d}, day, tt.want)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tt.wantErr == "") != (got == "") || !strings.Contains(got, tt.wantErr) {
			t.Errorf("checkFleetCount(want %d) = %q, want an error holding %q", tt.want, got, tt.wantErr)
		}
	}
}

// TestMedianOf: the middle value, or the mean of the two middle ones.
func TestMedianOf(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := medianOf(tt.in); got != tt.want {
			t.Errorf("medianOf(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
