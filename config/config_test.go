package config

import (
	"reflect"
	"strings"
	"testing"

	"cockpit/live/livetest"
)

func TestTemplateIsTheDefaults(t *testing.T) {
	got, err := Parse([]byte(Template), Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	// The template spells out the same values the defaults hold.
	if !reflect.DeepEqual(got.Cockpit, want.Cockpit) || !reflect.DeepEqual(got.Agents.Strategy.Symbols, want.Agents.Strategy.Symbols) ||
		got.Paper.TimeScale != want.Paper.TimeScale || !got.Paper.Cash.Equal(want.Paper.Cash) ||
		got.Tools.Shell != want.Tools.Shell || got.Agents.Plugin != want.Agents.Plugin || got.TUI.Mouse != want.TUI.Mouse || got.Agents.LLM.Timeout != want.Agents.LLM.Timeout ||
		*got.Policy.Global.Autonomy != *want.Policy.Global.Autonomy || *got.Policy.Profiles["live"].Autonomy != "supervised" {
		t.Fatalf("template differs from Default():\n%+v\n%+v", got, want)
	}
}

func TestUnknownKeysAndBadValuesAreNamed(t *testing.T) {
	cases := []struct{ toml, want string }{
		{"[cockpit]\nagnet = \"llm\"", "unknown key cockpit.agnet"},
		{"[policy.global.rate_limits]\nrequests_per_minut = 5", "unknown key policy.global.rate_limits.requests_per_minut"},
		{"[cockpit]\non_quit = \"explode\"", `cockpit.on_quit = "explode"`},
		{"[policy.global]\nautonomy = \"yolo\"", `policy.global.autonomy = "yolo"`},
		{"[policy.global.rate_limits]\nrequests_per_minute = -1", "policy.global.rate_limits.requests_per_minute = -1"},
		{"[paper]\ncash = \"abc\"", "paper.cash"},
		{"[policy.tool_groups]\ntrading = [\"place_order\"]", "policy.tool_groups.trading"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.toml), Default())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %q", c.toml, err, c.want)
		}
	}
}

func TestLoadAndInit(t *testing.T) {
	root := livetest.Root(t)
	cfg, err := Load(root)
	if err != nil || cfg.Cockpit.Agent != "strategy" {
		t.Fatalf("missing file: %+v %v", cfg.Cockpit, err)
	}
	if wrote, err := WriteTemplate(root); !wrote || err != nil {
		t.Fatalf("init: %v %v", wrote, err)
	}
	if wrote, _ := WriteTemplate(root); wrote {
		t.Fatal("init overwrote an existing config")
	}
	if _, err := Load(root); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultModelIsPriced(t *testing.T) {
	for name, src := range map[string]func() (Config, error){
		"Default()": func() (Config, error) { return Default(), nil },
		"template":  func() (Config, error) { return Parse([]byte(Template), Config{}) },
	} {
		cfg, err := src()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cfg.Agents.LLM.Prices[cfg.Agents.LLM.Model]; !ok {
			t.Errorf("%s: no agents.llm.prices.%s; `run --agent llm` fails on defaults", name, cfg.Agents.LLM.Model)
		}
	}
}

// TestTUIMouse: the mouse is on by default and [tui] mouse = false turns it off.
func TestTUIMouse(t *testing.T) {
	if !Default().TUI.Mouse {
		t.Errorf("mouse off by default, want on")
	}
	got, err := Parse([]byte("[tui]\nmouse = false\n"), Default())
	if err != nil {
		t.Fatal(err)
	}
	if got.TUI.Mouse {
		t.Errorf("mouse on after [tui] mouse = false")
	}
}
