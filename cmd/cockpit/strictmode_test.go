package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/internal/strictmode"
)

// plantedConfig is a config.toml whose broker table runs a program that leaves marker: what
// another user would plant in a root they can write.
func plantedConfig(marker string) string {
	return fmt.Sprintf(`[brokers.x]
kind = "mcp"
mode = "paper"
profile = "alpaca"
command = "/bin/sh"
args = ["-c", "touch %s"]
`, marker)
}

// TestStatusRefusesARootOthersCanChange is issue 27 item 5's repro: in a root others may
// write, another user's config.toml names their program as a broker command; `cockpit status`
// must refuse (naming the file, its owner and mode, and the fix) and never run it. The first
// case shows the program does run from a config the owner wrote.
func TestStatusRefusesARootOthersCanChange(t *testing.T) {
	cases := []struct {
		name     string
		rootMode os.FileMode
		other    bool     // config.toml is owned by uid 4242 (needs root)
		wants    []string // in stderr; nil: status runs and probes the broker
		badPath  string   // "" (the root) or "config.toml"
	}{
		{name: "the owner's config is run", rootMode: 0o700},
		{name: "ErrRoot0777WithSomeoneElsesConfig", rootMode: 0o777, other: true, wants: []string{"unsafe directory", "mode 0777", "chmod go-w"}},
		{name: "ErrRoot0777", rootMode: 0o777, wants: []string{"unsafe directory", "mode 0777", "chmod go-w"}},
		{name: "ErrSomeoneElsesConfig", rootMode: 0o700, other: true, badPath: "config.toml", wants: []string{"unsafe file", "owner uid 4242", "chown root"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			marker := filepath.Join(t.TempDir(), "ran")
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(home, "config.toml")
			if err := os.WriteFile(cfg, []byte(plantedConfig(marker)), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.other {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(cfg, 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(home, tc.rootMode); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := run(t, home, "", "status")
			_, statErr := os.Stat(marker)
			if tc.wants == nil {
				if statErr != nil {
					t.Fatalf("the owner's broker command did not run (%v): the test cannot see a run", statErr)
				}
				return
			}
			if statErr == nil {
				t.Errorf("status ran the broker command of a config others could change")
			}
			if code != exitFailure {
				t.Errorf("exit %d, want %d; stderr %q", code, exitFailure, errOut)
			}
			for _, w := range append(tc.wants, filepath.Join(home, tc.badPath)) {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q, want it to contain %q", errOut, w)
				}
			}
		})
	}
}

// TestServeSSHRefusesKeysOthersCanChange is issue 27 item 5's second repro: with ssh/ writable
// by others (or authorized_keys someone else's), serve-ssh refuses to start, naming the path.
// A non-loopback --listen without --allow-remote makes a start that got past the keys stop
// there instead of serving, so the test ends on the old code too.
func TestServeSSHRefusesKeysOthersCanChange(t *testing.T) {
	cases := []struct {
		name    string
		dirMode os.FileMode
		other   bool
		bad     string
		wants   []string
	}{
		{"ErrSshDir0777", 0o777, false, "ssh", []string{"unsafe directory", "mode 0777", "chmod go-w"}},
		{"ErrSomeoneElsesKeys", 0o700, true, "ssh/authorized_keys", []string{"unsafe file", "owner uid 4242", "chown root"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeAuthorizedKeys(t, home, "role=admin KEY stranger@elsewhere")
			if tc.other {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(filepath.Join(home, "ssh", "authorized_keys"), 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(filepath.Join(home, "ssh"), tc.dirMode); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := run(t, home, "", "serve-ssh", "--agent", "none", "--listen", "0.0.0.0:0")
			if code != exitFailure {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitFailure, errOut)
			}
			for _, w := range append(tc.wants, filepath.Join(home, tc.bad)) {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q, want it to contain %q", errOut, w)
				}
			}
			if strings.Contains(errOut, "Each line of") {
				t.Errorf("stderr %q: the key-format hint does not fix a StrictModes refusal", errOut)
			}
			if strings.Contains(errOut, "loopback") {
				t.Errorf("serve-ssh got past the keys to the address check: %q", errOut)
			}
		})
	}
}

// TestHaltOnARootOthersCanChange: the kill switch still trips on a root the StrictModes check
// refuses (halting never trusts the root's files, it only stops trading); the audit record
// it cannot write is said, with the reason, and status then refuses the root.
func TestHaltOnARootOthersCanChange(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, home, "", "halt", "--reason", "drill")
	if code != exitOK {
		t.Fatalf("halt: exit %d, want %d; stdout %q stderr %q", code, exitOK, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "live", "HALT")); err != nil {
		t.Fatalf("no HALT file after halt on an unsafe root: %v", err)
	}
	if !strings.Contains(errOut, "audit record failed") || !strings.Contains(errOut, "mode 0777") {
		t.Errorf("halt stderr %q, want the failed audit record and why", errOut)
	}
	if _, errOut, code := run(t, home, "", "status"); code != exitFailure || !strings.Contains(errOut, "unsafe directory") {
		t.Errorf("status on the unsafe root: exit %d stderr %q, want a refusal", code, errOut)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if g := statusJSON(t, home)["global"].(map[string]any); g["halted"] != true {
		t.Errorf("global halted = %v after the fix, want true", g["halted"])
	}
}

// TestCheckOnAStoreOthersCanChange: the what-if runs the runtime's gate, which reads its
// mandate ledger and the day's journal from cockpit.db; one others may write vouches for
// nothing, so no what-if runs on it (offline or --live), and the error names the file and the
// fix.
func TestCheckOnAStoreOthersCanChange(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	args := []string{"check", "--symbol", "AAPL", "--side", "buy", "--notional", "100", "--price", "180"}
	if out, _, _ := run(t, home, "", args...); !strings.Contains(out, `"verdict":"ALLOW"`) {
		t.Fatalf("check on a fresh root: %s, want ALLOW", out)
	}
	db := filepath.Join(home, "cockpit.db")
	if err := os.Chmod(db, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{args, append(args, "--live")} {
		out, errOut, code := run(t, home, "", args...)
		if code != exitFailure || out != "" {
			t.Errorf("%v with a 0666 cockpit.db: exit %d, stdout %q; want %d and no verdict", args, code, out, exitFailure)
		}
		for _, w := range []string{"unsafe file " + db, "chmod go-w"} {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v with a 0666 cockpit.db: %s, want it to contain %q", args, errOut, w)
			}
		}
	}
}

// TestInitRootPassesItsOwnCheck: every file and directory `cockpit init`, a halt and a
// serve-ssh start leave in a new root (config, token, store, log, mandate, consent, counter,
// sentinels, host key) is one the StrictModes check trusts.
func TestInitRootPassesItsOwnCheck(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"init"}, {"halt", "--broker", "paper", "--reason", "drill"}} {
		if _, errOut, code := run(t, home, "", args...); code != exitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	writeAuthorizedKeys(t, home, "role=viewer KEY viewer@desk")
	run(t, home, "", "serve-ssh", "--agent", "none", "--listen", "0.0.0.0:0") // makes the host key, stops at the address
	var paths []string
	err := filepath.WalkDir(home, func(p string, _ fs.DirEntry, err error) error {
		paths = append(paths, p)
		if err != nil {
			return err
		}
		return strictmode.Check(home, p)
	})
	if err != nil {
		t.Fatalf("a file of a new root fails the check: %v", err)
	}
	for _, want := range []string{"config.toml", "cockpit.db", filepath.Join("live", "paper", "HALT"), filepath.Join("ssh", "host_ed25519")} {
		if !strings.Contains(strings.Join(paths, "\n"), filepath.Join(home, want)) {
			t.Errorf("the walk did not reach %s (it saw %d paths)", want, len(paths))
		}
	}
}
