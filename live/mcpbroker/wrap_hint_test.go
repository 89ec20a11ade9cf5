package mcpbroker_test

import (
	"testing"

	"cockpit/live"
	"cockpit/live/mcpbroker"
)

// TestAuthoritativeMapIgnoresReadOnlyHint: under the Alpaca profile (its map is authoritative,
// alpaca-mcp.md) an unmapped tool is gated UNKNOWN whatever its readOnlyHint; under Robinhood
// too, since a broker server's hint never demotes (DV17; the reference's registry_wrapping
// lets it).
func TestAuthoritativeMapIgnoresReadOnlyHint(t *testing.T) {
	tests := []struct {
		profile, tool string
		hint          any
		wantClass     live.ToolClass
		wantGated     bool
	}{
		{"alpaca", "place_stock_order_v2", true, live.ClassUnknown, true},
		{"alpaca", "place_stock_order_v2", nil, live.ClassUnknown, true},
		{"alpaca", "get_all_positions", true, live.ClassRead, false},
		{"robinhood", "get_news", true, live.ClassUnknown, true},
		{"robinhood", "brand_new_tool", nil, live.ClassUnknown, true},
	}
	for _, tt := range tests {
		p := mcpbroker.ProfileFor(tt.profile, tt.profile)
		w := mcpbroker.Wrap(tt.profile, mcpbroker.Curated(p, tt.profile), []mcpbroker.ToolInfo{{Name: tt.tool, ReadOnlyHint: tt.hint}}, false)
		if len(w) != 1 {
			t.Fatalf("%s %s: got %d wrapped, want 1", tt.profile, tt.tool, len(w))
		}
		if w[0].Class != tt.wantClass || w[0].Gated != tt.wantGated {
			t.Errorf("%s %s hint %v: got class %s gated %v, want %s gated %v", tt.profile, tt.tool, tt.hint, w[0].Class, w[0].Gated, tt.wantClass, tt.wantGated)
		}
	}
}
