package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/session"
)

// brokerMandate is status --json's mandate object for the first broker listed.
func brokerMandate(t *testing.T, home string) map[string]any {
	t.Helper()
	return statusJSON(t, home)["brokers"].([]any)[0].(map[string]any)["mandate"].(map[string]any)
}

// usdCaps matches the order, exposure and funding caps in a committed mandate.json.
var usdCaps = regexp.MustCompile(`"(max_order_notional_usd|max_total_exposure_usd|account_funding_usd)": [0-9.]+`)

// TestTamperedMandateIsDenied is issue 10 item 2's repro: a committed mandate whose caps are
// raised on disk (sed) does not let a 50,000 order through (it did: ALLOW); check, status and mandate
// show say so; committing again restores trading.
func TestTamperedMandateIsDenied(t *testing.T) {
	home, file := t.TempDir(), writeDraft(t, draft)
	if _, _, code := run(t, home, "", "mandate", "commit", "--broker", "paper", "--from", file, "--yes"); code != 0 {
		t.Fatalf("commit: exit %d", code)
	}
	buy := func(notional string) (string, int) {
		out, _, code := run(t, home, "", "check", "--symbol", "AAPL", "--side", "buy", "--notional", notional)
		return out, code
	}
	if out, code := buy("500"); code != exitOK {
		t.Fatalf("committed mandate, 500 order: %d %s", code, out)
	}
	if v := brokerMandate(t, home)["verification"]; v != "verified" {
		t.Errorf("status verification after commit = %v, want verified", v)
	}
	path := filepath.Join(home, "live", "paper", "mandate.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := usdCaps.ReplaceAll(data, []byte(`"$1": 900000`))
	if string(edited) == string(data) {
		t.Fatalf("the cap is not in the committed file:\n%s", data)
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := buy("50000"); code != exitNotAllow || !strings.Contains(out, `"kind":"mandate_tampered"`) {
		t.Errorf("tampered mandate, 50000 order: exit %d %s, want %d and mandate_tampered", code, out, exitNotAllow)
	}
	m := brokerMandate(t, home)
	if m["verification"] != "tampered" || m["status"] != "tampered" {
		t.Errorf("status mandate = %v, want status and verification tampered", m)
	}
	if out, _, _ := run(t, home, "", "status"); !strings.Contains(out, "paper [PAPER] — ACTIVE, but every order is DENIED (mandate tampered)") {
		t.Errorf("status heading over a tampered mandate:\n%s\nwant it to say every order is denied", out)
	}
	if out, errOut, code := run(t, home, "", "mandate", "show"); code != exitFailure || !strings.Contains(errOut, "TAMPERED") {
		t.Errorf("mandate show: exit %d %q %q, want %d and TAMPERED", code, out, errOut, exitFailure)
	}
	if _, _, code := run(t, home, "", "mandate", "commit", "--broker", "paper", "--from", file, "--yes"); code != 0 {
		t.Fatalf("recommit: exit %d", code)
	}
	if out, code := buy("500"); code != exitOK {
		t.Errorf("after a new commit, 500 order: %d %s", code, out)
	}
}

// vibeMandate is a mandate as Vibe-Trading's commit writes it, for broker %s.
const vibeMandate = `{"schema_version": 1, "mandate_id": "mandate_0123456789abcdef0123456789abcdef",
 "hard_caps": {"account_funding_usd": 5000.0, "max_order_notional_usd": 750.0, "max_total_exposure_usd": 5000.0,
  "max_leverage": 1.0, "allowed_instruments": ["equity"], "max_trades_per_day": 5},
 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []},
 "flatten_on_halt": false,
 "consent": {"created_at": "2026-05-30T15:00:00Z", "consent_token_sha256": "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
  "broker": "BROKER", "account_ref": "acct_ref", "expires_at": "2026-06-29T15:00:00Z"}}`

// TestAdoptVibeMandate: a mandate another tool committed on the shared root is unverified
// (every order denied) until `mandate adopt` shows it and the operator types the broker name.
func TestAdoptVibeMandate(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "live", "paper", "mandate.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// Written by hand on purpose: this is the other tool's commit, not cockpit's.
	if err := os.WriteFile(path, []byte(strings.Replace(vibeMandate, "BROKER", "paper", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func() (string, int) {
		out, _, code := run(t, home, "", "check", "--symbol", "AAPL", "--side", "buy", "--notional", "500")
		return out, code
	}
	if out, code := check(); code != exitNotAllow || !strings.Contains(out, `"kind":"mandate_unverified"`) {
		t.Errorf("before adopt: exit %d %s, want %d and mandate_unverified", code, out, exitNotAllow)
	}
	if v := brokerMandate(t, home)["verification"]; v != "unverified" {
		t.Errorf("status verification before adopt = %v, want unverified", v)
	}
	out, _, code := run(t, home, "yes\n", "mandate", "adopt", "--broker", "paper")
	if code != exitFailure || !strings.Contains(out, "Max per order       $750") || !strings.Contains(out, "nothing was recorded") {
		t.Errorf("adopt without the typed name: exit %d %q", code, out)
	}
	if _, code := check(); code != exitNotAllow {
		t.Errorf("an unconfirmed adoption let an order pass: exit %d", code)
	}
	if out, _, code := run(t, home, "paper\n", "mandate", "adopt", "--broker", "paper"); code != exitOK || !strings.Contains(out, "Adopted mandate") {
		t.Fatalf("adopt: exit %d %q", code, out)
	}
	if out, code := check(); code != exitOK {
		t.Errorf("after adopt: exit %d %s, want allow", code, out)
	}
	if v := brokerMandate(t, home)["verification"]; v != "verified" {
		t.Errorf("status verification after adopt = %v, want verified", v)
	}
}

// TestAdoptRefusesAnotherBrokersConsent: the consent must name the broker being adopted.
func TestAdoptRefusesAnotherBrokersConsent(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "live", "paper", "mandate.json")
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(strings.Replace(vibeMandate, "BROKER", "alpaca", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, home, "paper\n", "mandate", "adopt", "--broker", "paper"); code != exitFailure || !strings.Contains(errOut, "consent.broker") {
		t.Errorf("adopt another broker's consent: exit %d %q", code, errOut)
	}
}

// TestUnknownMandateKeys: misspelled keys are errors in validate and commit, naming the key
// and the nearest known one; an unreadable expires_at fails validate.
func TestUnknownMandateKeys(t *testing.T) {
	full := strings.Replace(vibeMandate, "BROKER", "paper", 1)
	tests := []struct {
		name, doc, want string
	}{
		{"flaten_on_halt", strings.Replace(draft, `"universe"`, `"flaten_on_halt": true, "universe"`, 1), "flaten_on_halt: unknown key (did you mean flatten_on_halt?)"},
		{"exclude_symbolz", strings.Replace(draft, `"exclude_symbols"`, `"exclude_symbolz"`, 1), "universe.exclude_symbolz: unknown key (did you mean universe.exclude_symbols?)"},
		{"hardcaps", strings.Replace(draft, `{"hard_caps"`, `{"hardcaps": {}, "hard_caps"`, 1), "hardcaps: unknown key (did you mean hard_caps?)"},
		{"expires_at", strings.Replace(full, `"2026-06-29T15:00:00Z"`, `"next tuesday"`, 1), "consent.expires_at = 'next tuesday'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeDraft(t, tt.doc)
			out, _, code := run(t, t.TempDir(), "", "mandate", "validate", file)
			if code != exitFailure || !strings.Contains(out, "INVALID") || !strings.Contains(out, tt.want) {
				t.Errorf("validate: exit %d %q, want %d naming %q", code, out, exitFailure, tt.want)
			}
			if tt.name == "expires_at" {
				return // commit takes caps from a draft and sets its own expiry
			}
			home := t.TempDir()
			_, errOut, code := run(t, home, "", "mandate", "commit", "--broker", "paper", "--from", file, "--yes")
			if code != exitFailure || !strings.Contains(errOut, tt.want) {
				t.Errorf("commit: exit %d %q, want %d naming %q", code, errOut, exitFailure, tt.want)
			}
			if _, err := os.Stat(filepath.Join(home, "live", "paper", "mandate.json")); !os.IsNotExist(err) {
				t.Error("a mandate with an unknown key was written")
			}
		})
	}
}

// TestScreenBackendReportsTamperedMandate: the paper mandate cockpit committed on first run
// is verified on screen; edited on disk, the screen gets a critical state, not its limits.
func TestScreenBackendReportsTamperedMandate(t *testing.T) {
	home := t.TempDir()
	a := NewApp(strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(k string) string { return map[string]string{"COCKPIT_HOME": home}[k] }
	s, err := a.openSession("", session.Options{Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	be := s.Backend()
	ctx := context.Background()
	if snap := be.Snapshot(ctx); snap.MandateState != live.MandateVerified || snap.Mandate == nil {
		t.Fatalf("first-run paper mandate: state %q err %q, want verified", snap.MandateState, snap.MandateErr)
	}
	path := filepath.Join(home, "live", "paper", "mandate.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, usdCaps.ReplaceAll(data, []byte(`"$1": 900000`)), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := be.Snapshot(ctx)
	if snap.MandateState != live.MandateTampered || snap.Mandate != nil || !strings.Contains(snap.MandateErr, "TAMPERED") {
		t.Errorf("after the edit: state %q mandate %v err %q, want tampered and no limits", snap.MandateState, snap.Mandate != nil, snap.MandateErr)
	}
	// The form's commit records its hash like the CLI's; a misspelled key is refused there too.
	if _, err := be.CommitMandate(ctx, []byte(strings.Replace(draft, `"universe"`, `"flaten_on_halt": true, "universe"`, 1)), 30, "paper"); err == nil ||
		!strings.Contains(err.Error(), "did you mean flatten_on_halt?") {
		t.Errorf("form commit with flaten_on_halt: %v", err)
	}
	if _, err := be.CommitMandate(ctx, []byte(draft), 30, "paper"); err != nil {
		t.Fatal(err)
	}
	if snap := be.Snapshot(ctx); snap.MandateState != live.MandateVerified {
		t.Errorf("after the form's commit: state %q err %q, want verified", snap.MandateState, snap.MandateErr)
	}
}
