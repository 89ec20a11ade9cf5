package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/engine/safety"
)

// TestShellNeverReachesTheRuntimeRoot: a workspace that contains the runtime root is refused
// before any sandbox mounts it, and so is an argument or working directory inside the root
// from a workspace that holds a symlink into it.
func TestShellNeverReachesTheRuntimeRoot(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".cockpit")
	os.MkdirAll(filepath.Join(root, "live", "paper"), 0o700)
	os.WriteFile(filepath.Join(root, "live", "paper", "mandate.json"), []byte("{}"), 0o600)
	ws := filepath.Join(home, "work")
	os.MkdirAll(ws, 0o700)
	os.Symlink(filepath.Join(root, "live"), filepath.Join(ws, "l"))
	paths := safety.Paths{Cwd: "/", Home: home}
	s := &Shell{Backend: "none", Paths: paths, Timeout: 10 * time.Second, Protected: safety.ProtectRuntime(paths, root)}
	cases := []struct{ name, ws, cmd, cwd string }{
		{"workspace contains the root", home, "ls", ""},
		{"workspace is the root", root, "ls", ""},
		{"argument through a symlink", ws, "cat l/paper/mandate.json", ""},
		{"argument by absolute path", ws, "cat " + filepath.Join(root, "config.toml"), ""},
		{"cwd through a symlink", ws, "ls", "l"},
	}
	for _, c := range cases {
		pol := shellPolicy(c.ws)
		pol.RequireSandbox = false
		pol.Forbidden = nil
		_, err := s.Run(context.Background(), c.cmd, c.cwd, pol)
		if te, ok := err.(*engine.ToolError); !ok || te.Code != "path_forbidden" {
			t.Errorf("%s: got %v, want path_forbidden", c.name, err)
		}
	}
	pol := shellPolicy(ws)
	pol.RequireSandbox, pol.Forbidden = false, nil
	if out, err := s.Run(context.Background(), "ls", "", pol); err != nil || out == nil {
		t.Errorf("a workspace beside the root: got %v, want it to run", err)
	}
}
