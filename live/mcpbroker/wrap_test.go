package mcpbroker_test

import (
	"testing"

	"cockpit/live"
	"cockpit/live/mcpbroker"
	"cockpit/live/mcpbroker/mcppaper"
)

func TestClassification(t *testing.T) {
	tests := []struct {
		profile, tool string
		hint          any
		want          live.ToolClass
	}{
		{"alpaca", "place_stock_order", true, live.ClassWrite}, // a hint never demotes a mapped WRITE
		{"alpaca", "get_all_positions", false, live.ClassRead}, // a mapped READ stays READ
		{"alpaca", "close_all_positions", nil, live.ClassWrite},
		{"alpaca", "update_account_config", nil, live.ClassWrite},
		{"alpaca", "get_stock_latest_quote", nil, live.ClassRead},
		{"alpaca", "brand_new_tool", nil, live.ClassUnknown},
		{"alpaca", "brand_new_read", true, live.ClassUnknown},    // the map is authoritative: no hint promotes
		{"alpaca", "brand_new_write", false, live.ClassUnknown},  // unmapped is UNKNOWN (gated, denied) either way
		{"alpaca", "Place_Stock_Order", true, live.ClassUnknown}, // names are exact; the hint is ignored
		{"robinhood", "brand_new_read", true, live.ClassUnknown}, // DV17: a broker server's hint never demotes
		{"robinhood", "brand_new_write", false, live.ClassWrite},
		{"robinhood", "place_equity_order", true, live.ClassWrite},
		{"robinhood", "get_equity_quotes", nil, live.ClassRead},
		{"robinhood", "truthy_one", 1, live.ClassUnknown},
	}
	for _, tt := range tests {
		p := mcpbroker.ProfileFor(tt.profile, "")
		if got := mcpbroker.Curated(p, tt.profile).Classify(tt.tool, tt.hint); got != tt.want {
			t.Errorf("%s %s hint %v: got %s, want %s", tt.profile, tt.tool, tt.hint, got, tt.want)
		}
	}
}

// TestHostileServerIsWrapped: a server that advertises every tool read-only, and an
// unannotated order tool, still has its order tools gated, and none of them offered while
// halted.
func TestHostileServerIsWrapped(t *testing.T) {
	r := newRig(t, "mcppaper", "alpaca", mcppaper.Options{Hostile: true})
	curated := mcpbroker.Curated(r.mb.Profile, "mcppaper")
	gated := map[string]bool{}
	for _, w := range mcpbroker.Wrap("mcppaper", curated, r.mb.Tools(), false) {
		gated[w.Tool.Name] = w.Gated
	}
	for _, name := range []string{"place_stock_order", "place_option_order", "cancel_order_by_id", "close_all_positions", "brand_new_order"} {
		if g, ok := gated[name]; !ok || !g {
			t.Errorf("%s: offered %v gated %v, want gated", name, ok, g)
		}
	}
	if gated["get_all_positions"] {
		t.Error("get_all_positions: gated, want plain")
	}
	for _, w := range mcpbroker.Wrap("mcppaper", curated, r.mb.Tools(), true) {
		if w.Class.IsWrite() {
			t.Errorf("halted: %s (%s) offered", w.Tool.Name, w.Class)
		}
	}
}

func TestBrokerKeyByURL(t *testing.T) {
	for _, tt := range []struct{ key, url, want string }{
		{"myrh", "https://mcp.robinhood.com/v1", "robinhood"},
		{"myrh", "https://robinhood.com", "robinhood"},
		{"x", "https://notrobinhood.com/mcp", "x"},
		{"x", "https://robinhood.com.evil.example/mcp", "x"},
		{"x", "https://api.ibkr.com/mcp", "ibkr"},
		{"x", "", "x"},
	} {
		if got := mcpbroker.BrokerKey(tt.key, tt.url); got != tt.want {
			t.Errorf("BrokerKey(%q, %q): got %q, want %q", tt.key, tt.url, got, tt.want)
		}
	}
}
