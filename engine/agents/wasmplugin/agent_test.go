package wasmplugin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/store"
)

const manifestFmt = `name = %q
version = "0.0.1"
tools = [%s]
symbols = ["AAPL", "MSFT", "SPY"]
calls_per_minute = 600
memory_pages = %d
tick_budget = %q
`

// widest are the highest ceilings an operator can set.
var widest = wasmplugin.Ceilings{MemoryPages: wasmplugin.MaxPages, TickBudget: wasmplugin.MaxBudget}

type plug struct {
	f    *enginetest.Fixture
	a    *wasmplugin.Agent
	file string
}

func manifest(name, tools string, pages int, budget string) string {
	return fmt.Sprintf(manifestFmt, name, tools, pages, budget)
}

// setup copies a built module and its manifest into a temporary directory, loads it with
// both hashes pinned and the widest ceilings (these tests are about the runtime's own caps),
// and installs its grants on a paper engine fixture.
func setup(t *testing.T, mod, man string) plug {
	t.Helper()
	src := module(t, mod)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, mod+".wasm")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasmplugin.ManifestPath(file), []byte(man), 0o600); err != nil {
		t.Fatal(err)
	}
	f := enginetest.New(t)
	a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: file, SHA256: wasmplugin.Digest(b),
		ManifestSHA256: wasmplugin.Digest([]byte(man)), Ceilings: widest, Audit: f.DB, Session: "s1", Broker: live.PaperBroker, Now: f.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	a.Grant(&f.Engine.Policy)
	return plug{f: f, a: a, file: file}
}

func (p plug) tick(t *testing.T) error {
	t.Helper()
	return p.a.Turn(context.Background(), p.f.Engine.NewTurn(p.a.Name()))
}

// events returns the audit events of one type.
func (p plug) events(typ string) []store.Event {
	var out []store.Event
	for _, e := range p.f.Events() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestRunawayLoopStoppedEachTickAndDisabledAfterThree(t *testing.T) {
	p := setup(t, "loop", manifest("loop", "", 256, "50ms"))
	for i := 1; i <= wasmplugin.MaxOverruns; i++ {
		err := p.tick(t)
		if err == nil || !strings.Contains(err.Error(), "tick budget") {
			t.Fatalf("tick %d: got %v, want a budget overrun", i, err)
		}
		if got, want := p.a.Disabled() != "", i == wasmplugin.MaxOverruns; got != want {
			t.Fatalf("after overrun %d: disabled = %v, want %v", i, got, want)
		}
	}
	if err := p.tick(t); err != nil {
		t.Errorf("a disabled plugin ticked: %v", err)
	}
	if got := p.a.Status(); !strings.Contains(got, "DISABLED") || !strings.Contains(got, "3 times") {
		t.Errorf("status = %q, want DISABLED … 3 times", got)
	}
	evs := p.events(wasmplugin.KindDisabled)
	if len(evs) != 1 || evs[0].Reason != string(wasmplugin.ReasonOverBudget) || evs[0].ActorID != "plugin:loop" {
		t.Fatalf("disabled audit = %+v, want one %s by plugin:loop", evs, wasmplugin.ReasonOverBudget)
	}
}

func TestMemoryBombHitsTheCap(t *testing.T) {
	const pages = 256 // 16 MiB; the bomb wants 512 MiB
	p := setup(t, "bomb", manifest("bomb", "", pages, "5s"))
	err := p.tick(t)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "disabled: trapped") {
		t.Fatalf("got %v, want the plugin disabled after it trapped on the memory cap", err)
	}
	if strings.Contains(err.Error(), "budget") {
		t.Errorf("got %v: the bomb was stopped by the clock, not the memory cap", err)
	}
	if got := p.a.PeakPages(); got > pages || got == 0 {
		t.Errorf("peak memory = %d pages, want (0, %d]", got, pages)
	}
	if evs := p.events(wasmplugin.KindDisabled); len(evs) != 1 || evs[0].Reason != string(wasmplugin.ReasonTrapped) {
		t.Errorf("disabled audit = %+v, want one %s", evs, wasmplugin.ReasonTrapped)
	}
}

func TestTrapDisables(t *testing.T) {
	p := setup(t, "trap", manifest("trap", "", 256, "1s"))
	err := p.tick(t)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "disabled: trapped") {
		t.Fatalf("got %v, want disabled: trapped", err)
	}
	if err := p.tick(t); err != nil {
		t.Errorf("a disabled plugin ticked: %v", err)
	}
	if evs := p.events(wasmplugin.KindDisabled); len(evs) != 1 || evs[0].Reason != string(wasmplugin.ReasonTrapped) {
		t.Errorf("disabled audit = %+v, want one %s", evs, wasmplugin.ReasonTrapped)
	}
}

func TestUngrantedToolDeniedWithTheGrantNamedAndDisables(t *testing.T) {
	p := setup(t, "ungranted", manifest("ungranted", "", 256, "1s"))
	err := p.tick(t)
	if err == nil || !strings.Contains(err.Error(), "place_order, which its manifest does not grant") {
		t.Fatalf("got %v, want disabled for calling place_order", err)
	}
	var denied []store.Event
	for _, e := range p.f.Events() {
		if e.ActorID == "plugin:ungranted" && e.Tool != "" {
			denied = append(denied, e)
		}
	}
	if len(denied) != 1 {
		t.Fatalf("tool calls audited = %d (%+v), want only the refused place_order: the plugin was not stopped", len(denied), denied)
	}
	e := denied[0]
	if e.Tool != "place_order" || e.Reason != string(live.ReasonToolNotAllowed) || !strings.Contains(e.Payload, "allow list of grant:ungranted") {
		t.Errorf("audit = tool %s reason %s payload %s; want place_order tool_not_allowed naming grant:ungranted", e.Tool, e.Reason, e.Payload)
	}
	if p.f.Placed() != 0 {
		t.Errorf("%d orders reached the broker", p.f.Placed())
	}
	if evs := p.events(wasmplugin.KindDisabled); len(evs) != 1 || evs[0].Reason != string(wasmplugin.ReasonUngrantedTool) {
		t.Errorf("disabled audit = %+v, want one %s", evs, wasmplugin.ReasonUngrantedTool)
	}
}

func TestExampleTradesThroughTheGateIntoTheAudit(t *testing.T) {
	man, err := os.ReadFile("../../../examples/plugins/meanrev/meanrev.plugin.toml")
	if err != nil {
		t.Fatal(err)
	}
	p := setup(t, "meanrev", string(man))
	placed := 0
	for i := 0; i < 240 && placed == 0; i++ {
		if err := p.tick(t); err != nil {
			t.Fatalf("tick %d: %v", i, err)
		}
		for _, e := range p.events(live.KindOrderPlaced) {
			if e.ActorID == "plugin:meanrev" {
				placed++
			}
		}
		p.f.Clock.Advance(time.Minute)
	}
	if placed == 0 {
		t.Fatalf("the example plugin placed no order in 240 ticks; status %s", p.a.Status())
	}
	if p.f.Placed() == 0 {
		t.Error("no order reached the paper broker")
	}
	t.Logf("%d orders placed; %s", placed, p.a.Status())
	if p.a.Disabled() != "" {
		t.Errorf("disabled: %s", p.a.Disabled())
	}
	if rep, err := p.f.DB.Verify(context.Background(), nil); err != nil || !rep.OK() {
		t.Errorf("audit chain: %+v %v", rep, err)
	}
}
