package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineTellsTheTruth is issue 10 item 10: global flags before the verb, --help on
// the verbs with subcommands, extra arguments and bad values as short usage errors (rc 2),
// and status on an unknown broker or a missing root.
func TestCommandLineTellsTheTruth(t *testing.T) {
	home := t.TempDir()
	elsewhere := t.TempDir() // the --home given on the command line, not $COCKPIT_HOME
	missing := filepath.Join(t.TempDir(), "nothing-here")
	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    string // substring ("" = anything)
		stderr    string
		notStderr string
	}{
		{"--home before the verb", []string{"--home", elsewhere, "halt", "--reason", "x"}, exitOK, "Trading halted (global): x", "", ""},
		{"--home= before the verb", []string{"--home=" + elsewhere, "status", "--json"}, exitOK, `"halted":true`, "", ""},
		{"mandate --help", []string{"mandate", "--help"}, exitOK, "usage: cockpit mandate show", "", ""},
		{"audit --help", []string{"audit", "--help"}, exitOK, "usage: cockpit audit list", "", ""},
		{"approvals --help", []string{"approvals", "--help"}, exitOK, "usage: cockpit approvals list", "", ""},
		{"status --help", []string{"status", "--help"}, exitOK, "-broker", "", ""},
		{"extra argument", []string{"status", "extra"}, exitUsage, "", `unexpected argument "extra"`, "print JSON"},
		{"extra argument to halt", []string{"halt", "now", "--reason", "x"}, exitUsage, "", "usage: cockpit halt", ""},
		{"unknown flag: short usage", []string{"status", "--bogus"}, exitUsage, "", "Run `cockpit status --help` for its flags.", "report only this broker"},
		{"check --side hold", []string{"check", "--symbol", "AAPL", "--side", "hold", "--notional", "100"}, exitUsage, "", `--side "hold": want buy or sell`, ""},
		{"check --qty without --price", []string{"check", "--symbol", "AAPL", "--side", "buy", "--qty", "10"}, exitUsage, "", "--qty needs --price", ""},
		{"status --broker nope", []string{"status", "--broker", "nope"}, exitFailure, "", `no broker "nope"`, ""},
		{"status on a missing root", []string{"status", "--home", missing}, exitFailure, "", "no runtime root at " + missing, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, home, "", tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) ||
				(tt.notStderr != "" && strings.Contains(errOut, tt.notStderr)) {
				t.Errorf("cockpit %s: got exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout ∋ %q, stderr ∋ %q ∌ %q",
					strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.stdout, tt.stderr, tt.notStderr)
			}
			if lines := strings.Count(errOut, "\n"); tt.code == exitUsage && lines > 4 {
				t.Errorf("a usage error printed %d lines on stderr, want a usage line and a hint:\n%s", lines, errOut)
			}
		})
	}
	if statusJSON(t, home)["global"].(map[string]any)["halted"] != false {
		t.Error("`halt now --reason x` (a usage error) or `--home DIR halt` halted $COCKPIT_HOME")
	}
}

// TestCheckBatchLines: a line with a repeated key or over the size limit gets an error
// verdict naming it, the batch goes on, and every verdict carries its input's id.
func TestCheckBatchLines(t *testing.T) {
	defer func(n int) { batchLineLimit = n }(batchLineLimit)
	batchLineLimit = 2048
	d := strings.ReplaceAll(draft, "\n", "")
	ok := func(id string) string {
		return `{"id":"` + id + `","mandate":` + d + `,"intent":{"symbol":"AAPL","side":"buy","notional_usd":100,"instrument_type":"equity"},"positions":[],"daily_count":0}`
	}
	dup := `{"id":"dup","mandate":` + d + `,"intent":{"symbol":"AAPL","side":"buy","notional_usd":100,"notional_usd":900000,"instrument_type":"equity"},"positions":[],"daily_count":0}`
	long := `{"id":"long","pad":"` + strings.Repeat("x", 3000) + `"}`
	noID := strings.Replace(ok("x"), `"id":"x",`, "", 1)
	in := strings.Join([]string{ok("a"), dup, long, ok("b"), noID}, "\n") + "\n"
	out, errOut, code := run(t, t.TempDir(), in, "check", "--batch", "-")
	got := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitNotAllow || len(got) != 5 {
		t.Fatalf("batch: exit %d, %d lines (stderr %q)\n%s", code, len(got), errOut, out)
	}
	for i, want := range []string{`"id":"a","verdict":"ALLOW"`, `"id":"dup","verdict":"DENY","kind":"invalid_input"`,
		`"id":"line 3","verdict":"DENY","kind":"invalid_input"`, `"id":"b","verdict":"ALLOW"`, `"id":"line 5","verdict":"ALLOW"`} {
		if !strings.Contains(got[i], want) {
			t.Errorf("line %d = %s, want %s", i+1, got[i], want)
		}
	}
	if !strings.Contains(got[1], "duplicate key") || !strings.Contains(got[2], "line 3 is longer than") {
		t.Errorf("the error verdicts do not say why:\n%s\n%s", got[1], got[2])
	}
}

// TestCheckBatchFloatMarkerLine: a line that is itself a {"$float": …} marker is an object
// without a mandate, denied as such; it used to panic and end the whole batch.
func TestCheckBatchFloatMarkerLine(t *testing.T) {
	in := `{"$float": "nan"}` + "\n" + `{"id": "next"}` + "\n"
	out, errOut, code := run(t, t.TempDir(), in, "check", "--batch", "-")
	got := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitNotAllow || len(got) != 2 {
		t.Fatalf("batch: exit %d, %d lines (stderr %q)\n%s", code, len(got), errOut, out)
	}
	for i, want := range []string{`{"id":"line 1","verdict":"DENY","kind":"invalid_input"`, `{"id":"next","verdict":"DENY","kind":"invalid_input"`} {
		if !strings.HasPrefix(got[i], want) || !strings.Contains(got[i], `\"mandate\" must be an object`) {
			t.Errorf("line %d = %s, want %s… saying the mandate is missing", i+1, got[i], want)
		}
	}
}
