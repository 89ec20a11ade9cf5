package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)

// run drives the real App on a temporary home with a fixed clock and the given stdin.
func run(t *testing.T, home, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := NewApp(strings.NewReader(stdin), &out, &errOut)
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(k string) string {
		if k == "COCKPIT_HOME" {
			return home
		}
		return ""
	}
	code := a.Run(args)
	return out.String(), errOut.String(), code
}

func statusJSON(t *testing.T, home string) map[string]any {
	t.Helper()
	out, _, code := run(t, home, "", "status", "--json")
	if code != 0 {
		t.Fatalf("status exit %d", code)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	return v
}

func TestHaltStatusResume(t *testing.T) {
	home := t.TempDir()
	out, _, code := run(t, home, "", "halt", "--reason", "fat finger")
	if code != 0 || !strings.Contains(out, "Trading halted (global): fat finger") {
		t.Fatalf("halt: %d %q", code, out)
	}
	out, _, code = run(t, home, "", "halt", "--reason", "again")
	if code != 0 || !strings.Contains(out, "Already halted") || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second halt: %d %q", code, out)
	}
	g := statusJSON(t, home)["global"].(map[string]any)
	if g["halted"] != true || g["halt"].(map[string]any)["reason"] != "fat finger" {
		t.Fatalf("status global = %v", g)
	}
	if _, _, code := run(t, home, "", "resume"); code != exitUsage {
		t.Fatalf("resume without --reason: exit %d, want %d", code, exitUsage)
	}
	out, _, code = run(t, home, "", "resume", "--reason", "x")
	if code != 0 || !strings.Contains(out, "Cleared the halt sentinel (global): x") {
		t.Fatalf("resume: %d %q", code, out)
	}
	out, _, code = run(t, home, "", "resume", "--reason", "x")
	if code != 0 || !strings.Contains(out, "nothing to clear") {
		t.Fatalf("second resume: %d %q", code, out)
	}
	if statusJSON(t, home)["global"].(map[string]any)["halted"] != false {
		t.Fatal("still halted after resume")
	}
}

func TestResumeBrokerWarnsAboutGlobalHalt(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "halt")
	run(t, home, "", "halt", "--broker", "paper")
	out, _, _ := run(t, home, "", "resume", "--broker", "paper", "--reason", "ok")
	if !strings.Contains(out, "still halted by the global sentinel") {
		t.Fatalf("resume output %q does not warn", out)
	}
	if _, errOut, code := run(t, home, "", "halt", "--broker", "../x"); code != exitUsage || !strings.Contains(errOut, "never a path") {
		t.Fatalf("path-shaped broker: %d %q", code, errOut)
	}
}

const draft = `{"hard_caps": {"account_funding_usd": 5000, "max_order_notional_usd": 750, "max_total_exposure_usd": 5000,
 "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": 5},
 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": ["GME"]}}`

func writeDraft(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mandate.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMandateCommitNeedsTypedConfirmation(t *testing.T) {
	home, file := t.TempDir(), writeDraft(t, draft)
	out, _, code := run(t, home, "yes\n", "mandate", "commit", "--broker", "paper", "--from", file)
	if code != exitFailure || !strings.Contains(out, "nothing was committed") {
		t.Fatalf("'yes' is not the broker name: %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, "live", "paper", "mandate.json")); !os.IsNotExist(err) {
		t.Fatal("a mandate was written without confirmation")
	}
	out, _, code = run(t, home, "paper\n", "mandate", "commit", "--broker", "paper", "--from", file)
	if code != 0 || !strings.Contains(out, "active for paper until 2026-07-01T15:00:00.000000Z") {
		t.Fatalf("commit: %d %q", code, out)
	}
	fi, err := os.Stat(filepath.Join(home, "live", "paper", "mandate.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mandate file: %v %v", fi, err)
	}
	m := statusJSON(t, home)["brokers"].([]any)[0].(map[string]any)["mandate"].(map[string]any)
	if m["status"] != "active" || m["expires_in_seconds"].(float64) != 30*86400 {
		t.Fatalf("status mandate = %v", m)
	}
}

func TestMandateCommitLiveNeedsExplicitFlag(t *testing.T) {
	home, file := t.TempDir(), writeDraft(t, draft)
	if _, _, code := run(t, home, "", "mandate", "commit", "--broker", "alpaca", "--from", file, "--yes"); code != exitUsage {
		t.Fatalf("--yes on a live broker: exit %d, want %d", code, exitUsage)
	}
	if _, _, code := run(t, home, "", "mandate", "commit", "--broker", "alpaca", "--from", file, "--yes", "--i-understand-this-is-live"); code != 0 {
		t.Fatalf("explicit live commit: exit %d", code)
	}
}

func TestMandateValidateNamesTheField(t *testing.T) {
	bad := writeDraft(t, strings.Replace(draft, `"max_order_notional_usd": 750`, `"max_order_notional_usd": "750"`, 1))
	out, _, code := run(t, t.TempDir(), "", "mandate", "validate", bad)
	if code != exitFailure || !strings.Contains(out, "hard_caps.max_order_notional_usd = '750'") {
		t.Fatalf("validate: %d %q", code, out)
	}
}

func TestCheckOneOrder(t *testing.T) {
	home, file := t.TempDir(), writeDraft(t, draft)
	out, _, code := run(t, home, "", "check", "--symbol", "AAPL", "--side", "buy", "--notional", "100")
	if code != exitNotAllow || !strings.Contains(out, `"kind":"no_mandate"`) {
		t.Fatalf("without a mandate: %d %q", code, out)
	}
	run(t, home, "paper\n", "mandate", "commit", "--broker", "paper", "--from", file)
	cases := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--notional", "100"}, `"verdict":"ALLOW"`, exitOK},
		{[]string{"--qty", "10", "--price", "80"}, `"limit":"max_order_notional_usd","limit_value":750,"attempted_value":800`, exitNotAllow},
		{[]string{"--qty", "10"}, ``, exitUsage}, // a quantity needs a price to be valued offline
		{[]string{"--notional", "100", "--positions", `[{"symbol":"MSFT","market_value":4950}]`}, `"limit":"max_total_exposure_usd"`, exitNotAllow},
		{[]string{"--notional", "100", "--positions", `"garbage"`}, `"kind":"data"`, exitNotAllow},
	}
	for _, c := range cases {
		args := append([]string{"check", "--symbol", "AAPL", "--side", "buy"}, c.args...)
		out, _, code := run(t, home, "", args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("check %v: %d %q, want %d and %s", c.args, code, out, c.code, c.want)
		}
	}
	run(t, home, "", "halt")
	if out, _, _ := run(t, home, "", "check", "--symbol", "AAPL", "--side", "buy", "--notional", "1"); !strings.Contains(out, `"kind":"halted"`) {
		t.Fatalf("halted check: %q", out)
	}
}

func TestCheckBatch(t *testing.T) {
	draft := strings.ReplaceAll(draft, "\n", "")
	lines := `{"id":"ok","mandate":` + draft + `,"intent":{"symbol":"AAPL","side":"buy","notional_usd":100,"instrument_type":"equity"},"positions":[],"daily_count":0}
{"id":"inf","mandate":` + draft + `,"intent":{"symbol":"AAPL","side":"buy","notional_usd":{"$float":"inf"},"instrument_type":"equity"},"positions":[],"daily_count":0}

not json
`
	out, _, code := run(t, t.TempDir(), lines, "check", "--batch", "-")
	got := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitNotAllow || len(got) != 3 {
		t.Fatalf("batch: %d, %d lines\n%s", code, len(got), out)
	}
	for i, want := range []string{`"id":"ok","verdict":"ALLOW"`, `"id":"inf","verdict":"DENY","kind":"instrument"`, `"id":"line 4","verdict":"DENY","kind":"invalid_input"`} {
		if !strings.Contains(got[i], want) {
			t.Errorf("line %d = %s, want %s", i, got[i], want)
		}
	}
}
