package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/session"
	"cockpit/store"
)

// complete runs `cockpit __complete WORDS… CUR` on home and returns its lines.
func completeOn(t *testing.T, home string, words ...string) []string {
	t.Helper()
	out, errOut, code := run(t, home, "", append([]string{completeVerb}, words...)...)
	if code != exitOK || errOut != "" {
		t.Fatalf("__complete %q: exit %d, stderr %q; want 0 and nothing", words, code, errOut)
	}
	var vals []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line != "" {
			v, _, _ := strings.Cut(line, "\t")
			vals = append(vals, v)
		}
	}
	return vals
}

// TestCompletionScripts: each shell's script is printed, is valid for its shell (bash -n;
// zsh and fish when they are installed), calls back __complete, and an unknown shell is a
// usage error naming it and the three.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			out, errOut, code := run(t, t.TempDir(), "", "completion", sh)
			if code != exitOK || !strings.Contains(out, "__complete") {
				t.Fatalf("completion %s: exit %d, stderr %q; want 0 and a script calling __complete", sh, code, errOut)
			}
			bin, err := exec.LookPath(sh)
			if err != nil {
				t.Skipf("%s is not installed here: its script is not syntax-checked", sh)
			}
			path := filepath.Join(t.TempDir(), "cockpit."+sh)
			if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			if msg, err := exec.Command(bin, "-n", path).CombinedOutput(); err != nil {
				t.Errorf("%s -n on the script: %v\n%s", sh, err, msg)
			}
		})
	}
	_, errOut, code := run(t, t.TempDir(), "", "completion", "tcsh")
	if code != exitUsage || !strings.Contains(errOut, `"tcsh"`) || !strings.Contains(errOut, "bash, zsh, fish") {
		t.Errorf("completion tcsh: got exit %d, stderr %q; want %d naming tcsh and bash, zsh, fish", code, errOut, exitUsage)
	}
}

// TestCompleteWords: verbs, sub-verbs, flags and fixed values, from the same FlagSets the
// commands parse.
func TestCompleteWords(t *testing.T) {
	home := filepath.Join(t.TempDir(), "none")
	tests := []struct {
		words []string
		want  []string
	}{
		{[]string{"st"}, []string{"status"}},
		{[]string{"--home", "/x", "ha"}, []string{"halt"}},
		{[]string{"--home", ""}, []string{completeDirs}},
		{[]string{"--v"}, []string{"--version"}},
		{[]string{"audit", ""}, []string{"list", "show", "verify", "export", "rotate"}},
		{[]string{"broker", "p"}, []string{"profile"}},
		{[]string{"broker", "profile", ""}, []string{"check", "list", "show"}},
		{[]string{"broker", "nope", ""}, nil},
		{[]string{"broker", "profile", "check", ""}, []string{completeFiles}},
		{[]string{"fleet", "serve", "--no"}, []string{"--no-auth"}},
		{[]string{"status", "--"}, []string{"--broker", "--home", "--json"}},
		{[]string{"approvals", "list", "--state", "t"}, []string{"timed_out"}},
		{[]string{"approvals", "list", "--state=a"}, []string{"--state=approved", "--state=all"}},
		{[]string{"check", "--side", ""}, []string{"buy", "sell"}},
		{[]string{"check", "--side", "=", "b"}, []string{"buy"}}, // bash's words for --side=b
		{[]string{"init", "--broker", ""}, []string{"alpaca", "mcp"}},
		{[]string{"run", "--agent", "p"}, []string{"plugin"}},
		{[]string{"--headless", "--agent", "n"}, []string{"none"}},
		{[]string{"mandate", "commit", "--from", ""}, []string{completeFiles}},
		{[]string{"run", "--for", ""}, nil},
		{[]string{"run", "--json", ""}, nil},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"nope", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, " "), func(t *testing.T) {
			if got := completeOn(t, home, tt.words...); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCompletionFlagsMatchHelp: for every command (sub-verbs too) the flags completion
// offers are exactly those its --help prints.
func TestCompletionFlagsMatchHelp(t *testing.T) {
	cmds := commands()
	if len(cmds) < len(verbs()) {
		t.Fatalf("got %d commands, want at least one per verb (%d)", len(cmds), len(verbs()))
	}
	for _, c := range cmds {
		t.Run(c.path, func(t *testing.T) {
			if c.flags == nil || c.flags.Name() != "cockpit "+c.path {
				t.Fatalf("got flag set %v, want the one named %q (is the sub-verb dispatched?)", c.flags, "cockpit "+c.path)
			}
			help, _, code := run(t, t.TempDir(), "", append(strings.Fields(c.path), "--help")...)
			if code != exitOK {
				t.Fatalf("%s --help: exit %d", c.path, code)
			}
			var fromHelp []string
			for _, line := range strings.Split(help, "\n") {
				if strings.HasPrefix(line, "  -") {
					name, _, _ := strings.Cut(strings.TrimPrefix(line, "  -"), " ")
					fromHelp = append(fromHelp, "--"+name)
				}
			}
			got := completeOn(t, t.TempDir(), append(strings.Fields(c.path), "-")...)
			if !slices.Equal(got, fromHelp) || len(got) == 0 {
				t.Errorf("completion offers %q, --help lists %q", got, fromHelp)
			}
		})
	}
}

// dirState is every file under dir with its size and modification time.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			state[p] = fmt.Sprint(fi.Mode(), " ", fi.ModTime(), " ", fi.Size())
		}
		return nil
	})
	return state
}

// TestCompleteDynamicValues: --broker completes the config's broker keys and approvals
// approve a pending review id, read without writing anything under the root; a root that
// cannot be read gives no output at all.
func TestCompleteDynamicValues(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	cfg := filepath.Join(home, "config.toml")
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tables := "\n[brokers.acme]\nkind = \"mcp\"\nmode = \"paper\"\ncommand = \"acme-mcp\"\n\n[brokers.zeta]\nkind = \"alpaca\"\nmode = \"paper\"\nkey_env = \"ZETA_KEY\"\nsecret_env = \"ZETA_SECRET\"\n"
	if err := os.WriteFile(cfg, append(body, tables...), 0o600); err != nil {
		t.Fatal(err)
	}
	a := NewApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(string) string { return "" }
	s, err := a.openSession(home, session.Options{Agent: "none", Mode: "headless"})
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	if err := s.Runtime().DB.CreateApproval(context.Background(), store.Approval{ID: "ap_waiting1", SessionID: s.ID(), Broker: "paper",
		OrderJSON: `{"symbol":"AAPL"}`, Digest: "d", Why: "breach", Limit: live.LimitOrderNotional, LimitValue: "5000",
		Attempted: "6000", CreatedAt: fixedNow, Deadline: fixedNow.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, want := completeOn(t, home, "approvals", "deny", "ap_"), []string{"ap_waiting1"}; !slices.Equal(got, want) {
		t.Errorf("approvals deny ap_ while a session has the store open: got %q, want %q", got, want)
	}
	s.Close()

	before := dirState(t, home)
	if got, want := completeOn(t, home, "status", "--broker", ""), []string{"paper", "acme", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("status --broker: got %q, want %q", got, want)
	}
	if got, want := completeOn(t, home, "--home", home, "halt", "--broker=a"), []string{"--broker=acme"}; !slices.Equal(got, want) {
		t.Errorf("halt --broker=a: got %q, want %q", got, want)
	}
	if got, want := completeOn(t, home, "approvals", "approve", ""), []string{"ap_waiting1"}; !slices.Equal(got, want) {
		t.Errorf("approvals approve: got %q, want %q", got, want)
	}
	if after := dirState(t, home); !mapsEqual(before, after) {
		t.Errorf("completion changed the root:\nbefore %v\nafter  %v", before, after)
	}

	brokers, reviews := []string{"status", "--broker", ""}, []string{"approvals", "deny", ""}
	unreadable := []struct {
		name  string
		setup func(dir string)
		asks  [][]string
	}{
		{"no root", func(dir string) { os.RemoveAll(dir) }, [][]string{brokers, reviews}},
		{"config that does not parse", func(dir string) { os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[brokers\n"), 0o600) }, [][]string{brokers}},
		{"store that is not a database", func(dir string) { os.WriteFile(filepath.Join(dir, "cockpit.db"), []byte("not sqlite"), 0o600) }, [][]string{reviews}},
		{"root others may write", func(dir string) { os.Chmod(dir, 0o777) }, [][]string{brokers, reviews}},
	}
	for _, u := range unreadable {
		t.Run(u.name, func(t *testing.T) {
			dir := t.TempDir()
			run(t, dir, "", "init")
			u.setup(dir)
			for _, words := range u.asks {
				if got := completeOn(t, dir, words...); len(got) != 0 {
					t.Errorf("%q on a root it cannot read: got %q, want no output", words, got)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCLIDocIsCurrent: docs/cli.md is what the generator writes from today's commands.
func TestCLIDocIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := cliDoc(); string(got) != want {
		t.Errorf("docs/cli.md differs from the commands' definitions: run `go generate ./cmd/cockpit/` (got %d bytes, want %d)", len(got), len(want))
	}
}
