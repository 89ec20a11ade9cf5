package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/engine/agents/wasmplugin"
	"cockpit/store"
)

// `run --agent plugin` never trusts a module on first use: with no pinned sha256 it refuses
// and prints the hash to pin; with a different pin it refuses naming both; both are audited.
// (The hash is checked before the module is compiled, so any bytes do here.)
func TestPluginAgentRefusesAnUnpinnedOrChangedModule(t *testing.T) {
	module := []byte("\x00asm not really a module")
	got := wasmplugin.Digest(module)
	other := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name, config string
		want         []string
		code         string
	}{
		{"not pinned", "", []string{got, "[agents.plugin]", "sha256 = "}, string(wasmplugin.ReasonHashNotPinned)},
		{"changed", "[agents.plugin]\nsha256 = \"" + other + "\"\n", []string{got, other, "refusing"}, string(wasmplugin.ReasonHashMismatch)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			file := filepath.Join(home, "p.wasm")
			os.WriteFile(file, module, 0o600)
			os.WriteFile(wasmplugin.ManifestPath(file), []byte("name = \"p\"\nversion = \"1\"\nsymbols = [\"AAPL\"]\ncalls_per_minute = 10\nmemory_pages = 64\ntick_budget = \"100ms\"\n"), 0o600)
			if tc.config != "" {
				os.WriteFile(filepath.Join(home, "config.toml"), []byte(tc.config), 0o600)
			}
			o := testOptions(home)
			o.Agent, o.Plugin = "plugin", file
			s, err := Open(o)
			if err == nil {
				s.Close()
				t.Fatal("the session opened with the plugin")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			db, err := store.Open(filepath.Join(home, "cockpit.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			evs, err := db.Events(context.Background(), store.Filter{Limit: 1000, Ascending: true})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range evs {
				if e.Type == wasmplugin.KindRefused && e.Reason == tc.code && strings.Contains(e.Summary, got) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s audit records with the file's hash = %d, want 1", tc.code, n)
			}
		})
	}
}
