package wasmplugin_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/enginetest"
	"cockpit/live"
)

func TestManifestRefusesBadGrants(t *testing.T) {
	ok := "name = \"m\"\nversion = \"1\"\nsymbols = [\"AAPL\"]\ncalls_per_minute = 10\nmemory_pages = 64\ntick_budget = \"100ms\"\n"
	if _, err := wasmplugin.ParseManifest([]byte(ok)); err != nil {
		t.Fatalf("valid manifest: %v", err)
	}
	for _, tc := range []struct{ name, edit, want string }{
		{"unknown key", ok + "fs = [\"/\"]\n", "unknown key"},
		{"no symbols", strings.Replace(ok, `["AAPL"]`, `[]`, 1), "symbols is empty"},
		{"zero rate", strings.Replace(ok, "= 10", "= 0", 1), "calls_per_minute"},
		{"no memory", strings.Replace(ok, "= 64", "= 0", 1), "memory_pages"},
		{"budget too long", strings.Replace(ok, `"100ms"`, `"1m"`, 1), "tick_budget"},
		{"bad name", strings.Replace(ok, `"m"`, `"../x"`, 1), "name"},
	} {
		if _, err := wasmplugin.ParseManifest([]byte(tc.edit)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error about %s", tc.name, err, tc.want)
		}
	}
}

// Through the chokepoint, the grant layer refuses a symbol the manifest does not grant, and
// a tool outside its tools, naming the grant; both are audited.
func TestGrantEnforcedAtTheChokepoint(t *testing.T) {
	man, err := wasmplugin.ParseManifest([]byte("name = \"g\"\nversion = \"1\"\ntools = []\nsymbols = [\"AAPL\"]\ncalls_per_minute = 10\nmemory_pages = 64\ntick_budget = \"100ms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := enginetest.New(t)
	if f.Engine.Policy.Grants == nil {
		f.Engine.Policy.Grants = map[string]engine.Layer{}
	}
	f.Engine.Policy.Grants[man.Agent()] = man.Layer()
	turn := f.Engine.NewTurn(man.Agent())
	ctx := context.Background()
	if r := turn.Call(ctx, "get_quote", map[string]any{"symbol": "AAPL"}); !r.OK() {
		t.Errorf("granted quote: %+v", r)
	}
	r := turn.Call(ctx, "get_quote", map[string]any{"symbol": "TSLA"})
	if r.Code != engine.ReasonSymbolNotGranted || !strings.Contains(r.Detail, "grant:g") {
		t.Errorf("ungranted symbol: %s %q, want %s naming grant:g", r.Code, r.Detail, engine.ReasonSymbolNotGranted)
	}
	r = turn.Call(ctx, "place_order", enginetest.Buy("AAPL", "100"))
	if r.Code != live.ReasonToolNotAllowed || !strings.Contains(r.Detail, "grant:g") {
		t.Errorf("ungranted tool: %s %q, want %s naming grant:g", r.Code, r.Detail, live.ReasonToolNotAllowed)
	}
	// The built-in strategy agent is untouched by the plugin's grant.
	if r := f.Call("get_quote", map[string]any{"symbol": "TSLA"}); !r.OK() {
		t.Errorf("strategy quote TSLA: %+v", r)
	}
	n := 0
	for _, e := range f.Events() {
		if e.ActorID == "plugin:g" && e.Outcome == live.OutcomeBlocked {
			n++
		}
	}
	if n != 2 {
		t.Errorf("blocked audit rows of plugin:g = %d, want 2", n)
	}
}
