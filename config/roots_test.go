package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
)

// TestRootsOverlappingTheRuntimeRootAreRejected: a file root or workspace that contains the
// runtime root, or lies in its state, fails Load with both paths named; the agent areas and
// directories beside the root load.
func TestRootsOverlappingTheRuntimeRootAreRejected(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, ".cockpit")
	os.MkdirAll(filepath.Join(dir, "live"), 0o700)
	root, err := live.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "alias")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, toml, key string
		ok              bool
	}{
		{"write root contains the root", "[tools.files]\nwrite_roots = [\"" + parent + "\"]\n", "tools.files.write_roots", false},
		{"read root is the root", "[tools.files]\nread_roots = [\"" + dir + "\"]\n", "tools.files.read_roots", false},
		{"run root inside live/", "[tools.files]\nrun_roots = [\"live\"]\n", "tools.files.run_roots", false},
		{"a symlink to the root", "[tools.files]\nwrite_roots = [\"" + link + "/live\"]\n", "tools.files.write_roots", false},
		{"dot-dot back into the root", "[tools.files]\nwrite_roots = [\"uploads/../live\"]\n", "tools.files.write_roots", false},
		{"workspace contains the root", "[policy.agents.llm]\nworkspace_restrictions = [\"" + parent + "\"]\n", "policy.agents.llm.workspace_restrictions", false},
		{"uploads is the agent's", "[tools.files]\nwrite_roots = [\"" + dir + "/uploads\"]\n", "", true},
		{"beside the root", "[tools.files]\nwrite_roots = [\"" + filepath.Join(parent, "work") + "\"]\n", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(Path(root), []byte(c.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(root)
			if c.ok {
				if err != nil {
					t.Fatalf("got %v, want it to load", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got no error, want %s rejected", c.key)
			}
			for _, want := range []string{c.key, "overlaps the runtime root " + dir} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("got %q, want it to contain %q", err, want)
				}
			}
		})
	}
}
