package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cockpit/config"
	"cockpit/internal/strictmode"
	"cockpit/live"
	"cockpit/live/halt"
)

// freshRoot opens and closes a paper session on a new root (with a config.toml, as `cockpit
// init` writes it, and a tripped HALT), so every file cockpit makes on its own is there.
func freshRoot(t *testing.T) live.Root {
	t.Helper()
	root := live.Root(t.TempDir())
	if _, err := config.WriteTemplate(root); err != nil {
		t.Fatal(err)
	}
	s, err := Open(testOptions(string(root)))
	if err != nil {
		t.Fatalf("Open on a fresh root: %v", err)
	}
	s.Close()
	if _, err := halt.Trip(root, live.HaltSentinel, live.BrokerScope(live.PaperBroker), "test", "test", time.Now()); !halt.InForce(err) {
		t.Fatal(err)
	}
	return root
}

// TestFreshRootPassesItsOwnCheck: every file and directory a session makes in a new root is
// one the StrictModes check trusts.
func TestFreshRootPassesItsOwnCheck(t *testing.T) {
	root := freshRoot(t)
	if err := CheckRoot(root); err != nil {
		t.Fatalf("CheckRoot(a fresh root) = %v, want nil", err)
	}
	n := 0
	err := filepath.WalkDir(root.Dir(), func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		return strictmode.Check(root.Dir(), p)
	})
	if err != nil {
		t.Fatalf("a file of the fresh root fails the check: %v", err)
	}
	if n < 8 {
		t.Fatalf("walked %d paths, want at least the root, config, store, log and live/ tree", n)
	}
}

// TestOpenRefusesARootOthersCanChange is issue 27 item 5: a session does not start on a root
// whose config, store, live/ tree or root itself someone else could have changed, and the
// refusal names the path.
func TestOpenRefusesARootOthersCanChange(t *testing.T) {
	cases := []struct {
		name  string
		path  func(live.Root) string
		mode  fs.FileMode // 0: leave the mode
		other bool        // give it to uid 4242 (needs root)
	}{
		{"ErrRoot0777", func(r live.Root) string { return r.Dir() }, 0o777, false},
		{"ErrConfig0666", config.Path, 0o666, false},
		{"ErrConfigSomeoneElses", config.Path, 0, true},
		{"ErrStore0666", func(r live.Root) string { return filepath.Join(r.Dir(), "cockpit.db") }, 0o666, false},
		{"ErrStoreSomeoneElses", func(r live.Root) string { return filepath.Join(r.Dir(), "cockpit.db") }, 0, true},
		{"ErrLiveDir0777", func(r live.Root) string { return r.LiveDir() }, 0o777, false},
		{"ErrBrokerDir0770", func(r live.Root) string { return r.BrokerDir(live.PaperBroker) }, 0o770, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := freshRoot(t)
			p := tc.path(root)
			if tc.mode != 0 {
				if err := os.Chmod(p, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			if tc.other {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(p, 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Open(testOptions(root.Dir()))
			if err == nil {
				s.Close()
			}
			var e *strictmode.Error
			if !errors.As(err, &e) || e.Path != p {
				t.Fatalf("Open = %v, want a StrictModes refusal naming %s", err, p)
			}
		})
	}
}
