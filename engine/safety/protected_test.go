package safety

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProtectedRuntime pins what ProtectRuntime refuses: the root and anything in it but the
// agent areas, its state files by any name (a hard link, a case variant), the root reached
// through a symlink, a relative root, and a database kept outside the root.
func TestProtectedRuntime(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "rt")
	os.MkdirAll(filepath.Join(root, "live", "paper"), 0o700)
	os.MkdirAll(filepath.Join(root, "uploads"), 0o700)
	os.WriteFile(filepath.Join(root, "cockpit.db"), []byte("db"), 0o600)
	os.Symlink(root, filepath.Join(base, "alias"))
	os.MkdirAll(filepath.Join(base, "elsewhere"), 0o700)
	hard := filepath.Join(base, "elsewhere", "copy.db")
	if err := os.Link(filepath.Join(root, "cockpit.db"), hard); err != nil {
		t.Fatal(err)
	}
	outsideDB := filepath.Join(base, "data", "my.db")
	p := Paths{Cwd: base}
	g := ProtectRuntime(p, filepath.Join(base, "alias"), outsideDB)
	t.Chdir(base) // a relative root is relative to the process, as live.NewRoot makes it
	rel := ProtectRuntime(Paths{Cwd: "/"}, "rt")
	cases := []struct {
		path      string
		forbidden bool
	}{
		{root, true},
		{filepath.Join(root, "live", "paper", "mandate.json"), true},
		{filepath.Join(root, "cockpit.db-shm"), true},
		{filepath.Join(root, "LIVE", "paper", "mandate.json"), true},
		{filepath.Join(root, "Uploads", "x"), true},
		{filepath.Join(root, "uploadsx"), true},
		{filepath.Join(root, "new.txt"), true},
		{hard, true},
		{outsideDB, true},
		{outsideDB + "-wal", true},
		{filepath.Join(root, "uploads", "a.txt"), false},
		{filepath.Join(root, "runs", "r1", "out.csv"), false},
		{filepath.Join(base, "elsewhere", "x.txt"), false},
		{base, false},
	}
	for _, c := range cases {
		res, err := p.Resolve(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := g.Check(res); got != c.forbidden {
			t.Errorf("Check(%s) = %v, want %v", c.path, got, c.forbidden)
		}
	}
	if _, got := rel.Check(filepath.Join(root, "live")); !got {
		t.Errorf("a relative runtime root does not protect %s", filepath.Join(root, "live"))
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{{base, true}, {"/", true}, {filepath.Join(root, "live"), true}, {filepath.Join(base, "data"), true},
		{filepath.Join(root, "uploads"), false}, {filepath.Join(base, "elsewhere"), false}} {
		if _, got := g.Overlaps(c.dir); got != c.want {
			t.Errorf("Overlaps(%s) = %v, want %v", c.dir, got, c.want)
		}
	}
}
