package safety

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProtectedCaseVariantOfOtherLength (review of issue 10 item 1): a case variant of the
// runtime root whose bytes are fewer than the root's (Ⱥ is 2 bytes, its lower case ⱥ is 3)
// is refused like any other spelling; before, Check sliced past the end of the path and
// panicked, taking the tool call (or the process) down.
func TestProtectedCaseVariantOfOtherLength(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "rtⱥ")
	os.MkdirAll(filepath.Join(root, "uploads"), 0o700)
	g := ProtectRuntime(Paths{Cwd: base}, root)
	for _, p := range []string{
		filepath.Join(base, "rtȺ"),
		filepath.Join(base, "rtȺ", "live", "paper", "mandate.json"),
		filepath.Join(base, "rtȺ", "uploads", "x"),
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Check(%q) panicked: %v", p, r)
				}
			}()
			if _, ok := g.Check(p); !ok {
				t.Errorf("Check(%q) = allowed, want protected", p)
			}
		}()
	}
	if _, ok := g.Check(filepath.Join(root, "uploads", "x")); ok {
		t.Errorf("the root's own uploads area is refused")
	}
}
