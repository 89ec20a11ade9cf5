package wasmplugin_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/store"
)

// aaplOnly is the example plugin's manifest as the operator reviewed it: AAPL only.
const aaplOnly = `name = "meanrev"
version = "0.1.0"
tools = ["place_order"]
symbols = ["AAPL"]
calls_per_minute = 60
memory_pages = 512
tick_budget = "250ms"
`

// widened is the same manifest edited beside the pinned module (issue 27 item 3's repro).
const widened = `name = "meanrev"
version = "0.1.0"
tools = ["place_order"]
symbols = ["AAPL", "NVDA"]
calls_per_minute = 100000
memory_pages = 65536
tick_budget = "10s"
`

// exampleBeside copies the built example module into a temporary directory with man beside
// it, returning the module's path and bytes.
func exampleBeside(t *testing.T, man string) (string, []byte) {
	t.Helper()
	wasm, err := os.ReadFile(module(t, "meanrev"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "meanrev.wasm")
	if err := os.WriteFile(file, wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasmplugin.ManifestPath(file), []byte(man), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, wasm
}

// TestModulePinAloneDoesNotTrustTheManifest is a regression test (issue 27 item 3): with
// only the module pinned, a manifest edited beside it to add NVDA, 100,000 calls a minute,
// 65,536 pages and a 10 s tick loaded, and an NVDA order was allowed, with nothing audited.
// The manifest is now part of the pin: unpinned, the load is refused naming its hash.
func TestModulePinAloneDoesNotTrustTheManifest(t *testing.T) {
	file, wasm := exampleBeside(t, widened)
	f := enginetest.New(t)
	a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(wasm),
		Audit: f.DB, Session: "s1", Broker: live.PaperBroker, Now: f.Clock.Now})
	if err == nil {
		defer a.Close(context.Background())
		a.Grant(&f.Engine.Policy)
		r := f.Engine.NewTurn(a.Name()).Call(context.Background(), "place_order", enginetest.Buy("NVDA", "100"))
		t.Fatalf("the edited manifest loaded under the module's pin alone: NVDA order %s %s %q", r.Status, r.Code, r.Detail)
	}
	if want := wasmplugin.Digest([]byte(widened)); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the manifest's sha256 %s", err, want)
	}
	if f.Placed() != 0 {
		t.Errorf("%d orders reached the broker", f.Placed())
	}
}

// refusals returns the plugin_refused events of f, and fails if any plugin loaded.
func refusals(t *testing.T, f *enginetest.Fixture) []store.Event {
	t.Helper()
	var out []store.Event
	for _, e := range f.Events() {
		switch e.Type {
		case wasmplugin.KindRefused:
			out = append(out, e)
		case wasmplugin.KindLoaded:
			t.Errorf("a plugin_loaded event was audited: %s", e.Summary)
		}
	}
	return out
}

// The repro of issue 27 item 3 with both pins: the operator pins the example module and its
// manifest granting AAPL only; NVDA is refused at the chokepoint. The manifest is then edited
// beside the pinned module to add NVDA, 100,000 calls a minute, 65,536 pages and a 10 s
// tick: the next load is refused naming the pinned and the actual hash, and audited.
func TestEditedManifestRefusedNamingBothHashes(t *testing.T) {
	file, wasm := exampleBeside(t, aaplOnly)
	f := enginetest.New(t)
	cfg := wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(wasm), ManifestSHA256: wasmplugin.Digest([]byte(aaplOnly)),
		Audit: f.DB, Session: "s1", Broker: live.PaperBroker, Now: f.Clock.Now}
	a, err := wasmplugin.Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.Grant(&f.Engine.Policy)
	r := f.Engine.NewTurn(a.Name()).Call(context.Background(), "place_order", enginetest.Buy("NVDA", "100"))
	a.Close(context.Background())
	if r.OK() || r.Code != engine.ReasonSymbolNotGranted {
		t.Fatalf("NVDA under the pinned AAPL-only manifest: got %s %s %q, want %s", r.Status, r.Code, r.Detail, engine.ReasonSymbolNotGranted)
	}
	if err := os.WriteFile(wasmplugin.ManifestPath(file), []byte(widened), 0o600); err != nil {
		t.Fatal(err)
	}
	g := enginetest.New(t)
	cfg.Audit, cfg.Now = g.DB, g.Clock.Now
	a, err = wasmplugin.Load(context.Background(), cfg)
	if err == nil {
		a.Close(context.Background())
		t.Fatal("the edited manifest loaded")
	}
	pinned, actual := wasmplugin.Digest([]byte(aaplOnly)), wasmplugin.Digest([]byte(widened))
	for _, w := range []string{wasmplugin.ManifestPath(file), "its sha256 is " + actual, "config pins " + pinned, "agents.plugin.manifest_sha256", "refusing"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	got := refusals(t, g)
	if len(got) != 1 || got[0].Reason != string(wasmplugin.ReasonManifestMismatch) ||
		!strings.Contains(got[0].Payload, `"manifest_sha256":"`+actual+`"`) || !strings.Contains(got[0].Payload, `"manifest_pin":"`+pinned+`"`) {
		t.Errorf("refusal audit = %+v, want one %s with both manifest hashes", got, wasmplugin.ReasonManifestMismatch)
	}
}

// A module or manifest that differs from its pin, or is not pinned, is refused before the
// manifest is read or the module compiled; the refusal names the hashes and is audited once.
func TestPinsRefuseAChangedOrUnpinnedFile(t *testing.T) {
	mod, man := []byte("\x00asm not really a module"), []byte(aaplOnly)
	modSum, manSum := wasmplugin.Digest(mod), wasmplugin.Digest(man)
	other := strings.Repeat("ab", 32)
	tests := []struct {
		name, modPin, manPin string
		code                 live.Reason
		want                 []string
	}{
		{"module changed", other, manSum, wasmplugin.ReasonHashMismatch, []string{"its sha256 is " + modSum, "config pins " + other, "(agents.plugin.sha256)", "refusing"}},
		{"manifest changed", modSum, other, wasmplugin.ReasonManifestMismatch, []string{"its sha256 is " + manSum, "config pins " + other, "(agents.plugin.manifest_sha256)"}},
		{"both changed", other, other, wasmplugin.ReasonHashMismatch, []string{modSum, manSum, "(agents.plugin.sha256)", "(agents.plugin.manifest_sha256)"}},
		{"nothing pinned", "", "", wasmplugin.ReasonHashNotPinned, []string{"agents.plugin.sha256 and agents.plugin.manifest_sha256 not set", "sha256 = \"" + modSum, "manifest_sha256 = \"" + manSum}},
		{"manifest not pinned", modSum, "", wasmplugin.ReasonHashNotPinned, []string{"agents.plugin.manifest_sha256 not set", "manifest_sha256 = \"" + manSum}},
		{"module not pinned", "", manSum, wasmplugin.ReasonHashNotPinned, []string{"agents.plugin.sha256 not set", "sha256 = \"" + modSum}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "p.wasm")
			os.WriteFile(file, mod, 0o600)
			os.WriteFile(wasmplugin.ManifestPath(file), man, 0o600)
			f := enginetest.New(t)
			a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: tt.modPin, ManifestSHA256: tt.manPin,
				Audit: f.DB, Session: "s1", Now: f.Clock.Now})
			if err == nil {
				a.Close(context.Background())
				t.Fatal("the plugin loaded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			got := refusals(t, f)
			if len(got) != 1 || got[0].Reason != string(tt.code) || !strings.Contains(got[0].Summary, modSum) || !strings.Contains(got[0].Summary, manSum) {
				t.Errorf("refusal audit = %+v, want one %s with both files' hashes", got, tt.code)
			}
		})
	}
}

// A pin is hex: its case and surrounding spaces do not matter.
func TestPinIgnoresCaseAndSpace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tiny.wasm")
	os.WriteFile(file, tinyModule, 0o600)
	os.WriteFile(wasmplugin.ManifestPath(file), []byte(aaplOnly), 0o600)
	f := enginetest.New(t)
	a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: " " + strings.ToUpper(wasmplugin.Digest(tinyModule)) + " ",
		ManifestSHA256: strings.ToUpper(wasmplugin.Digest([]byte(aaplOnly))), Audit: f.DB, Session: "s1", Now: f.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	a.Close(context.Background())
}
