package gate_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/livetest"
	"cockpit/live/mandatefile"
)

type brokenLedger struct{}

func (brokenLedger) LastMandateHash(context.Context, string) (string, bool, error) {
	return "", false, errors.New("database is locked")
}

// TestGateVerifiesTheCommittedBytes (DV13): the gate passes only the mandate.json last
// committed, byte for byte; an edit, a missing record, a nil or failing ledger deny before
// the broker is asked anything.
func TestGateVerifiesTheCommittedBytes(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *fixture)
		reason live.Reason
	}{
		{"committed", func(f *fixture) {}, ""},
		{"cap raised on disk", func(f *fixture) {
			path := f.root.MandatePath("paper")
			data, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(data), `"max_order_notional_usd": 5000`, `"max_order_notional_usd": 900000`, 1)), 0o600)
		}, live.ReasonMandateTampered},
		{"one byte of whitespace", func(f *fixture) {
			path := f.root.MandatePath("paper")
			data, _ := os.ReadFile(path)
			os.WriteFile(path, append(data, '\n'), 0o600)
		}, live.ReasonMandateTampered},
		{"nil ledger", func(f *fixture) { f.gate.Mandates = nil }, live.ReasonMandateUnverified},
		{"ledger of another root", func(f *fixture) { f.gate.Mandates = &auditsink.Memory{} }, live.ReasonMandateUnverified},
		{"ledger unreadable", func(f *fixture) { f.gate.Mandates = brokenLedger{} }, live.ReasonMandateUnverified},
		{"recommitted after an edit", func(f *fixture) {
			path := f.root.MandatePath("paper")
			os.WriteFile(path, []byte("{}"), 0o600)
			livetest.Commit(t, f.root, "paper", "", f.clock.Now())
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "")
			tt.setup(f)
			d := f.buy("AAPL", "1000", "")
			if tt.reason == "" {
				if d.Verdict != live.Allow {
					t.Fatalf("verdict %s (%v), want ALLOW", d.Verdict, d.Message())
				}
				return
			}
			if d.Verdict != live.Deny || d.Reason != tt.reason {
				t.Fatalf("verdict %s reason %s, want DENY %s", d.Verdict, d.Reason, tt.reason)
			}
			if len(f.broker.calls) != 0 {
				t.Errorf("broker asked %v before the mandate was verified", f.broker.calls)
			}
		})
	}
}

// TestCommitFileRefusesUnknownKeys: the commit path the CLI and the form share refuses a
// misspelled key, naming it and the nearest known key, and writes nothing.
func TestCommitFileRefusesUnknownKeys(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{`"universe"`, `"flaten_on_halt": true, "universe"`, "flaten_on_halt: unknown key (did you mean flatten_on_halt?)"},
		{`"exclude_symbols"`, `"exclude_symbolz"`, "universe.exclude_symbolz: unknown key (did you mean universe.exclude_symbols?)"},
		{`"max_trades_per_day"`, `"max_trade_per_day": 3, "max_trades_per_day"`, "hard_caps.max_trade_per_day: unknown key (did you mean hard_caps.max_trades_per_day?)"},
	}
	for _, tt := range tests {
		root := livetest.Root(t)
		doc := strings.Replace(livetest.MandateDoc, tt.from, tt.to, 1)
		_, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: root, Broker: "paper", Document: []byte(doc), ConsentAck: true, Now: livetest.Epoch})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.to, err, tt.want)
		}
		if _, err := os.Stat(root.MandatePath("paper")); !os.IsNotExist(err) {
			t.Errorf("%s: a mandate was written", tt.to)
		}
	}
}
