package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/engine/agents/wasmplugin"
	"cockpit/store"
)

// `run --agent plugin` never trusts a module on first use: with no pinned sha256 it refuses
// and prints the hashes to pin; with a different pin it refuses naming both; both are audited.
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

// tinyModule is the smallest module the plugin loader accepts: one exported tick that
// returns at once (hand-assembled type, function, export and code sections).
var tinyModule = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
	0x03, 0x02, 0x01, 0x00,
	0x07, 0x08, 0x01, 0x04, 't', 'i', 'c', 'k', 0x00, 0x00,
	0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
}

const (
	aaplOnly = "name = \"meanrev\"\nversion = \"0.1.0\"\ntools = [\"place_order\"]\nsymbols = [\"AAPL\"]\ncalls_per_minute = 60\nmemory_pages = 512\ntick_budget = \"250ms\"\n"
	widened  = "name = \"meanrev\"\nversion = \"0.1.0\"\ntools = [\"place_order\"]\nsymbols = [\"AAPL\", \"NVDA\"]\ncalls_per_minute = 100000\nmemory_pages = 65536\ntick_budget = \"10s\"\n"
)

// pluginHome is a runtime root with the tiny module, the manifest man beside it, and a
// config.toml pinning the module and the manifest text pinned (extra ends [agents.plugin]).
func pluginHome(t *testing.T, man, pinned, extra string) (home, file string) {
	t.Helper()
	home = t.TempDir()
	file = filepath.Join(home, "meanrev.wasm")
	os.WriteFile(file, tinyModule, 0o600)
	os.WriteFile(wasmplugin.ManifestPath(file), []byte(man), 0o600)
	cfg := fmt.Sprintf("[agents.plugin]\nfile = \"meanrev.wasm\"\nsha256 = %q\nmanifest_sha256 = %q\n%s", wasmplugin.Digest(tinyModule), wasmplugin.Digest([]byte(pinned)), extra)
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600)
	return home, file
}

// pluginEvents returns the audit events of type typ in home's store.
func pluginEvents(t *testing.T, home, typ string) []store.Event {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	evs, err := db.Events(context.Background(), store.Filter{Limit: 1000, Ascending: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Issue 27 item 3's repro through config.toml: with the module and its AAPL-only manifest
// pinned, the plugin runs under grant:meanrev (NVDA refused) and its load is audited with
// both hashes; once the manifest is edited beside the module, `run --agent plugin` refuses,
// naming the pinned and the actual hash. (Regression: before, the edited manifest loaded.)
func TestPluginAgentRunsUnderThePinnedManifest(t *testing.T) {
	home, file := pluginHome(t, aaplOnly, aaplOnly, "")
	o := testOptions(home)
	o.Agent = "plugin"
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Engine().NewTurn("plugin:meanrev").Call(context.Background(), "place_order", map[string]any{"symbol": "NVDA", "side": "buy", "notional": "100"})
	s.Close()
	if r.OK() || r.Code != engine.ReasonSymbolNotGranted {
		t.Errorf("NVDA: got %s %s %q, want %s", r.Status, r.Code, r.Detail, engine.ReasonSymbolNotGranted)
	}
	modSum, pinned := wasmplugin.Digest(tinyModule), wasmplugin.Digest([]byte(aaplOnly))
	if evs := pluginEvents(t, home, wasmplugin.KindLoaded); len(evs) != 1 || !strings.Contains(evs[0].Summary, modSum) ||
		!strings.Contains(evs[0].Summary, pinned) || !strings.Contains(evs[0].Payload, `"symbols":["AAPL"]`) {
		t.Errorf("plugin_loaded = %+v, want one with both hashes and symbols [AAPL]", evs)
	}
	os.WriteFile(wasmplugin.ManifestPath(file), []byte(widened), 0o600)
	if s, err = Open(o); err == nil {
		s.Close()
		t.Fatal("the session opened with the edited manifest")
	}
	actual := wasmplugin.Digest([]byte(widened))
	for _, w := range []string{"its sha256 is " + actual, "config pins " + pinned, "agents.plugin.manifest_sha256"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if evs := pluginEvents(t, home, wasmplugin.KindRefused); len(evs) != 1 || evs[0].Reason != string(wasmplugin.ReasonManifestMismatch) {
		t.Errorf("plugin_refused = %+v, want one %s", evs, wasmplugin.ReasonManifestMismatch)
	}
}

// The ceilings come from config: a pinned manifest asking more than agents.plugin's
// max_memory_pages or max_tick_budget (the defaults, or the operator's) is refused at load.
func TestPluginAgentCeilingsFromConfig(t *testing.T) {
	tests := []struct{ name, man, extra, want string }{
		{"repro manifest, default ceilings", widened, "", "memory_pages = 65536 is over the ceiling of 1024"},
		{"repro manifest, default budget", widened, "", `tick_budget = "10s" is over the ceiling of 1s`},
		{"lowered memory ceiling", aaplOnly, "max_memory_pages = 256\n", "memory_pages = 512 is over the ceiling of 256 (agents.plugin.max_memory_pages)"},
		{"lowered budget ceiling", aaplOnly, "max_tick_budget = \"100ms\"\n", `tick_budget = "250ms" is over the ceiling of 100ms (agents.plugin.max_tick_budget)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, _ := pluginHome(t, tt.man, tt.man, tt.extra)
			o := testOptions(home)
			o.Agent = "plugin"
			s, err := Open(o)
			if err == nil {
				s.Close()
				t.Fatal("the session opened with the plugin")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if evs := pluginEvents(t, home, wasmplugin.KindRefused); len(evs) != 1 || evs[0].Reason != string(wasmplugin.ReasonOverCeiling) {
				t.Errorf("plugin_refused = %+v, want one %s", evs, wasmplugin.ReasonOverCeiling)
			}
		})
	}
}

// config's ceilings agree with the loader's: the same defaults (an unset ceiling means the
// same either way), and the highest ceiling config accepts is the loader's hard bound.
func TestPluginCeilingsAgree(t *testing.T) {
	got := wasmplugin.Ceilings{MemoryPages: config.DefaultPluginMaxMemoryPages, TickBudget: config.DefaultPluginMaxTickBudget}
	if got != wasmplugin.DefaultCeilings {
		t.Errorf("config's defaults %+v, loader's %+v", got, wasmplugin.DefaultCeilings)
	}
	parse := func(pages int, budget time.Duration) error {
		_, err := config.Parse([]byte(fmt.Sprintf("[agents.plugin]\nmax_memory_pages = %d\nmax_tick_budget = %q\n", pages, budget)), config.Default())
		return err
	}
	if err := parse(wasmplugin.MaxPages, wasmplugin.MaxBudget); err != nil {
		t.Errorf("the loader's bounds as ceilings: %v", err)
	}
	if parse(wasmplugin.MaxPages+1, time.Second) == nil || parse(1024, wasmplugin.MaxBudget+time.Millisecond) == nil {
		t.Error("config accepts a ceiling past the loader's bounds")
	}
}
