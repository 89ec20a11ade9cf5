package mcpbroker_test

import (
	"testing"

	"cockpit/live"
	"cockpit/live/mcpbroker"
)

// TestBrokerHintNeverDemotes (DV17): a broker server's readOnlyHint is the server's word, not
// a permission. Under every profile, and with none, a tool the profile does not name READ is
// gated whatever its hint; a hint of false still makes an unmapped tool WRITE; the profile's
// own READ tools stay plain.
func TestBrokerHintNeverDemotes(t *testing.T) {
	tests := []struct {
		profile, key, tool string
		hint               any
		want               live.ToolClass
	}{
		{"robinhood", "evil", "get_market_summary", true, live.ClassUnknown},
		{"", "evil", "get_market_summary", true, live.ClassUnknown},
		{"alpaca", "evil", "get_market_summary", true, live.ClassUnknown},
		{"", "robinhood", "get_news", true, live.ClassUnknown},
		{"", "evil", "submit_thing", false, live.ClassWrite},
		{"", "evil", "mystery", nil, live.ClassUnknown},
		{"robinhood", "evil", "get_equity_positions", nil, live.ClassRead},
		{"robinhood", "evil", "place_equity_order", true, live.ClassWrite},
	}
	for _, tt := range tests {
		p := mcpbroker.ProfileFor(tt.profile, tt.key)
		w := mcpbroker.Wrap(tt.key, mcpbroker.Curated(p, tt.key), []mcpbroker.ToolInfo{{Name: tt.tool, ReadOnlyHint: tt.hint}}, false)
		if len(w) != 1 {
			t.Fatalf("%s/%s %s: got %d wrapped, want 1", tt.profile, tt.key, tt.tool, len(w))
		}
		if got, gated := w[0].Class, w[0].Gated; got != tt.want || gated != tt.want.IsWrite() {
			t.Errorf("profile %q key %s %s hint %v: got %s gated %v, want %s gated %v", tt.profile, tt.key, tt.tool, tt.hint, got, gated, tt.want, tt.want.IsWrite())
		}
	}
}

// TestOperatorReadTools: a tool the operator lists under the broker table's read_tools is
// offered plain (under an authoritative map too); a mapped WRITE tool stays gated even if
// listed (the config refuses that list; the wrap does not rely on it).
func TestOperatorReadTools(t *testing.T) {
	tools := []mcpbroker.ToolInfo{{Name: "get_market_summary", ReadOnlyHint: true}, {Name: "get_news"},
		{Name: "place_equity_order", ReadOnlyHint: true}, {Name: "place_stock_order"}, {Name: "other", ReadOnlyHint: true}}
	read := []string{"get_market_summary", "get_news", "place_equity_order", "place_stock_order"}
	for _, tt := range []struct {
		profile string
		plain   map[string]bool
	}{
		{"robinhood", map[string]bool{"get_market_summary": true, "get_news": true, "place_stock_order": true}},
		{"alpaca", map[string]bool{"get_market_summary": true, "get_news": true, "place_equity_order": true}},
		{"", map[string]bool{"get_market_summary": true, "get_news": true, "place_equity_order": true, "place_stock_order": true}},
	} {
		p := mcpbroker.ProfileFor(tt.profile, "evil")
		for _, w := range mcpbroker.Wrap("evil", mcpbroker.Curated(p, "evil").WithRead(read), tools, false) {
			if w.Gated == tt.plain[w.Tool.Name] {
				t.Errorf("profile %q: %s gated %v (%s), want gated %v", tt.profile, w.Tool.Name, w.Gated, w.Class, !tt.plain[w.Tool.Name])
			}
		}
	}
}
