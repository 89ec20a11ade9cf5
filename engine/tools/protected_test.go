package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/engine/tools"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/livetest"
)

// TestAgentCannotRewriteItsMandate is issue 10 item 1's repro on the engine route: with the
// file tool on and a write root ("~"-like) that contains the runtime root, write_file on the
// committed mandate raising max_order_notional_usd to 900,000 is refused as path_forbidden
// and audited, the file is unchanged, and a 50,000 order is still denied. The same goes for
// the counter, a consent record, the database, the config, and every detour: "..", a
// symlink planted in an agent area, a relative path, a case variant.
func TestAgentCannotRewriteItsMandate(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.Approver = false
	root := f.Root.Dir()
	cfg := config.Default()
	cfg.Tools.Files.Enabled = true
	cfg.Tools.Files.ReadRoots = []string{filepath.Dir(root)}
	cfg.Tools.Files.WriteRoots = []string{filepath.Dir(root)}
	if _, err := tools.Register(f.Engine.Tools, cfg, root); err != nil {
		t.Fatal(err)
	}
	mandatePath := f.Root.MandatePath(live.PaperBroker)
	before, err := os.ReadFile(mandatePath)
	if err != nil {
		t.Fatal(err)
	}
	raised := strings.Replace(livetest.MandateDoc, `"max_order_notional_usd": 5000`, `"max_order_notional_usd": 900000`, 1)
	os.MkdirAll(filepath.Join(root, "uploads"), 0o700)
	if err := os.Symlink(mandatePath, filepath.Join(root, "uploads", "m.json")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, mandatePath)
	targets := []string{
		mandatePath,
		rel, // relative paths resolve against the runtime root
		filepath.Join(root, "uploads", "..", rel),
		filepath.Join(root, "uploads", "m.json"),
		filepath.Join(filepath.Dir(root), strings.ToUpper(filepath.Base(root)), rel),
		f.Root.CounterPath(live.PaperBroker),
		filepath.Join(f.Root.ConsentDir(live.PaperBroker), "forged.json"),
		filepath.Join(root, "cockpit.db"),
		filepath.Join(root, "cockpit.db-wal"),
		filepath.Join(root, "config.toml"),
		filepath.Join(root, "cockpit.log"),
		filepath.Join(root, "live", "HALT"),
	}
	for _, p := range targets {
		f.Clock.Advance(2 * time.Minute) // past the denial cool-down
		r := f.Call("write_file", map[string]any{"path": p, "text": raised})
		if r.Status != engine.StatusDenied || r.Code != "path_forbidden" {
			t.Errorf("write_file %s: got %s/%s (%s), want denied/path_forbidden", p, r.Status, r.Code, r.Detail)
		}
		if r := f.Call("read_file", map[string]any{"path": p}); r.Status == engine.StatusOK {
			t.Errorf("read_file %s: got ok, want refused", p)
		}
	}
	after, _ := os.ReadFile(mandatePath)
	if string(after) != string(before) {
		t.Fatalf("the mandate changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(root, "live", "HALT")); err == nil {
		t.Errorf("a HALT sentinel was written")
	}
	audited := 0
	for _, e := range f.Events() {
		if e.Tool == "write_file" && (e.Reason == "path_forbidden" || strings.Contains(e.Payload, "path_forbidden")) {
			audited++
		}
	}
	if audited < len(targets) {
		t.Errorf("audited %d refused write_file calls, want %d", audited, len(targets))
	}
	f.Clock.Advance(2 * time.Minute)
	r := f.Call("place_order", enginetest.Buy("AAPL", "50000"))
	if r.Status == engine.StatusOK || f.Placed() != 0 || r.Limit != "max_order_notional_usd" {
		t.Fatalf("50,000 order: got %s/%s on %q, %d placed; want denied on max_order_notional_usd and nothing placed", r.Status, r.Code, r.Limit, f.Placed())
	}
	// The agent's own areas stay usable.
	f.Clock.Advance(2 * time.Minute)
	ok := f.Call("write_file", map[string]any{"path": filepath.Join(root, "uploads", "note.txt"), "text": "hi"})
	if ok.Status != engine.StatusOK {
		t.Errorf("write_file in uploads: got %s/%s (%s), want ok", ok.Status, ok.Code, ok.Detail)
	}
	outside := filepath.Join(filepath.Dir(root), fmt.Sprintf("notes-%d.txt", os.Getpid()))
	t.Cleanup(func() { os.Remove(outside) })
	if r := f.Call("write_file", map[string]any{"path": outside, "text": "hi"}); r.Status != engine.StatusOK {
		t.Errorf("write_file beside the root: got %s/%s (%s), want ok", r.Status, r.Code, r.Detail)
	}
}
