package wasmplugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/store"
)

// tinyModule is the smallest module Load accepts: one exported tick that returns at once
// (hand-assembled: type, function, export and code sections). It compiles without the Go
// toolchain, so load tests need no build.
var tinyModule = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // types: () -> ()
	0x03, 0x02, 0x01, 0x00, // functions: one of type 0
	0x07, 0x08, 0x01, 0x04, 't', 'i', 'c', 'k', 0x00, 0x00, // exports: "tick" = function 0
	0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code: no locals, end
}

// loadTiny writes tinyModule with man beside it and loads it with both pinned under c.
func loadTiny(t *testing.T, f *enginetest.Fixture, man string, c wasmplugin.Ceilings) (*wasmplugin.Agent, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tiny.wasm")
	if err := os.WriteFile(file, tinyModule, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasmplugin.ManifestPath(file), []byte(man), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(tinyModule),
		ManifestSHA256: wasmplugin.Digest([]byte(man)), Ceilings: c, Audit: f.DB, Session: "s1", Broker: live.PaperBroker, Now: f.Clock.Now})
	if err == nil {
		t.Cleanup(func() { a.Close(context.Background()) })
	}
	return a, err
}

// A pinned manifest that asks more memory or a longer tick than the operator's ceilings is
// refused at load, naming the field, the value asked and the ceiling; unset ceilings are the
// defaults (1,024 pages, 1 s), never "no limit"; a manifest at the ceiling loads.
func TestCeilingsRefuseAManifestAskingMore(t *testing.T) {
	def := wasmplugin.Ceilings{}
	tests := []struct {
		name   string
		pages  int
		budget string
		c      wasmplugin.Ceilings
		want   []string // nil = loads
	}{
		{"repro: 65,536 pages and 10s", 65536, "10s", def, []string{"memory_pages = 65536 is over the ceiling of 1024 (agents.plugin.max_memory_pages)", `tick_budget = "10s" is over the ceiling of 1s (agents.plugin.max_tick_budget)`}},
		{"16,384 pages", 16384, "250ms", def, []string{"memory_pages = 16384 is over the ceiling of 1024"}},
		{"one page over the default", 1025, "250ms", def, []string{"memory_pages = 1025"}},
		{"budget over the default", 512, "1.5s", def, []string{`tick_budget = "1.5s" is over the ceiling of 1s`}},
		{"at the defaults", 1024, "1s", def, nil},
		{"over a lowered ceiling", 512, "250ms", wasmplugin.Ceilings{MemoryPages: 256, TickBudget: 100 * time.Millisecond}, []string{"ceiling of 256", "ceiling of 100ms"}},
		{"within a raised ceiling", 4096, "5s", wasmplugin.Ceilings{MemoryPages: 4096, TickBudget: 5 * time.Second}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := enginetest.New(t)
			man := strings.NewReplacer("memory_pages = 512", fmt.Sprintf("memory_pages = %d", tt.pages), `"250ms"`, fmt.Sprintf("%q", tt.budget)).Replace(aaplOnly)
			_, err := loadTiny(t, f, man, tt.c)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("got %v, want loaded", err)
				}
				return
			}
			if err == nil {
				t.Fatal("the manifest loaded")
			}
			for _, w := range append(tt.want, "refusing") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got := refusals(t, f); len(got) != 1 || got[0].Reason != string(wasmplugin.ReasonOverCeiling) || got[0].ActorID != "plugin:meanrev" {
				t.Errorf("refusal audit = %+v, want one %s by plugin:meanrev", got, wasmplugin.ReasonOverCeiling)
			}
		})
	}
}

// A pinned manifest that does not parse is refused and audited.
func TestInvalidPinnedManifestIsAudited(t *testing.T) {
	f := enginetest.New(t)
	_, err := loadTiny(t, f, aaplOnly+"fs = [\"/\"]\n", wasmplugin.Ceilings{})
	if err == nil || !strings.Contains(err.Error(), `unknown key "fs"`) {
		t.Fatalf("got %v, want the unknown key refused", err)
	}
	if got := refusals(t, f); len(got) != 1 || got[0].Reason != string(wasmplugin.ReasonManifestInvalid) {
		t.Errorf("refusal audit = %+v, want one %s", got, wasmplugin.ReasonManifestInvalid)
	}
}

// loaded is the payload of a plugin_loaded event.
type loaded struct {
	Detail struct {
		Name, Version, Module, Manifest string
		ModuleSHA256                    string `json:"module_sha256"`
		ManifestSHA256                  string `json:"manifest_sha256"`
		Grants                          struct {
			Layer          string
			Tools          []string
			Symbols        []string
			CallsPerMinute int64  `json:"calls_per_minute"`
			MemoryPages    uint32 `json:"memory_pages"`
			TickBudget     string `json:"tick_budget"`
		}
		Ceilings struct {
			MaxMemoryPages uint32 `json:"max_memory_pages"`
			MaxTickBudget  string `json:"max_tick_budget"`
		}
	}
}

// The grants in force are audited at load: one plugin_loaded record by plugin:NAME with the
// module's and the manifest's hashes, every granted tool and symbol, the rate, the memory cap,
// the budget and the ceilings.
func TestLoadAuditsTheGrantsInForce(t *testing.T) {
	f := enginetest.New(t)
	if _, err := loadTiny(t, f, aaplOnly, wasmplugin.Ceilings{MemoryPages: 2048}); err != nil {
		t.Fatal(err)
	}
	var evs []store.Event
	for _, e := range f.Events() {
		if e.Type == wasmplugin.KindLoaded {
			evs = append(evs, e)
		}
	}
	if len(evs) != 1 || evs[0].ActorID != "plugin:meanrev" || evs[0].Outcome != live.OutcomeAccepted {
		t.Fatalf("plugin_loaded events = %+v, want one accepted by plugin:meanrev", evs)
	}
	modSum, manSum := wasmplugin.Digest(tinyModule), wasmplugin.Digest([]byte(aaplOnly))
	if s := evs[0].Summary; !strings.Contains(s, modSum) || !strings.Contains(s, manSum) || !strings.Contains(s, "symbols AAPL") {
		t.Errorf("summary %q: want both hashes and the symbols", s)
	}
	var got loaded
	if err := json.Unmarshal([]byte(evs[0].Payload), &got); err != nil {
		t.Fatal(err)
	}
	d := got.Detail
	if d.Name != "meanrev" || d.Version != "0.1.0" || d.ModuleSHA256 != modSum || d.ManifestSHA256 != manSum || !strings.HasSuffix(d.Manifest, "tiny.plugin.toml") {
		t.Errorf("detail = %+v, want meanrev 0.1.0 with sha256 %s and manifest sha256 %s", d, modSum, manSum)
	}
	g := d.Grants
	wantTools := append([]string{"place_order"}, wasmplugin.ReadTools...)
	if g.Layer != "grant:meanrev" || !reflect.DeepEqual(g.Tools, wantTools) || !reflect.DeepEqual(g.Symbols, []string{"AAPL"}) ||
		g.CallsPerMinute != 60 || g.MemoryPages != 512 || g.TickBudget != "250ms" {
		t.Errorf("grants = %+v, want grant:meanrev tools %v symbols [AAPL] 60/min 512 pages 250ms", g, wantTools)
	}
	if c := d.Ceilings; c.MaxMemoryPages != 2048 || c.MaxTickBudget != "1s" {
		t.Errorf("ceilings = %+v, want 2048 pages (set) and 1s (default)", c)
	}
}

// failLoaded is an audit sink that cannot write a plugin_loaded record.
type failLoaded struct{ live.AuditSink }

func (s failLoaded) Record(ctx context.Context, r live.AuditRecord) error {
	if r.Kind == wasmplugin.KindLoaded {
		return errors.New("disk full")
	}
	return s.AuditSink.Record(ctx, r)
}

// A plugin whose load cannot be audited does not run, and one with no audit sink at all is
// refused.
func TestUnauditedLoadDoesNotRun(t *testing.T) {
	f := enginetest.New(t)
	file := filepath.Join(t.TempDir(), "tiny.wasm")
	os.WriteFile(file, tinyModule, 0o600)
	os.WriteFile(wasmplugin.ManifestPath(file), []byte(aaplOnly), 0o600)
	cfg := wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(tinyModule), ManifestSHA256: wasmplugin.Digest([]byte(aaplOnly)),
		Audit: failLoaded{f.DB}, Session: "s1", Now: f.Clock.Now}
	if a, err := wasmplugin.Load(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "could not be audited") {
		if err == nil {
			a.Close(context.Background())
		}
		t.Errorf("failing audit sink: got %v, want the load refused", err)
	}
	cfg.Audit = nil
	if a, err := wasmplugin.Load(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "no audit sink") {
		if err == nil {
			a.Close(context.Background())
		}
		t.Errorf("no audit sink: got %v, want the load refused", err)
	}
}
