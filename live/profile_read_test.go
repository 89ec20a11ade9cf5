package live

import (
	"strings"
	"testing"
)

// TestClassifyBrokerTool (DV17): the curated map first, then the operator's read list; a hint
// of false makes an unmapped tool WRITE; a hint of true never makes one READ.
func TestClassifyBrokerTool(t *testing.T) {
	rh := CuratedTools("robinhood")
	read := map[string]bool{"get_news": true, "place_equity_order": true}
	tests := []struct {
		tool string
		hint any
		want ToolClass
	}{
		{"get_market_summary", true, ClassUnknown},
		{"get_market_summary", nil, ClassUnknown},
		{"get_market_summary", 1, ClassUnknown},
		{"submit_thing", false, ClassWrite},
		{"get_equity_quotes", false, ClassRead},        // mapped READ
		{"place_equity_order", true, ClassWrite},       // mapped WRITE: neither hint nor read list demotes it
		{"get_news", nil, ClassRead},                   // the operator's read list
		{"get_news", false, ClassRead},                 // the operator's word beats the server's
		{"Get_News", true, ClassUnknown},               // names are exact
		{"cancel_equity_order", nil, ClassWrite},       // mapped WRITE
		{"get_equity_positions", true, ClassRead},      // mapped READ
		{"brand_new_tool", "true", ClassUnknown},       // a string is not a bool
		{"get_portfolio", map[string]any{}, ClassRead}, // mapped READ whatever the hint
	}
	for _, tt := range tests {
		if got := ClassifyBrokerTool(rh, read, tt.tool, tt.hint); got != tt.want {
			t.Errorf("ClassifyBrokerTool(%s, hint %v): got %s, want %s", tt.tool, tt.hint, got, tt.want)
		}
	}
	if got := ClassifyBrokerTool(nil, nil, "get_quotes", true); got != ClassUnknown {
		t.Errorf("no map, no read list, hint true: got %s, want unknown", got)
	}
}

// TestCheckReadTools: the operator's read_tools are tool names, each once, and never a tool
// the curated map names WRITE nor the profile's order or cancel tool.
func TestCheckReadTools(t *testing.T) {
	tests := []struct {
		profile, key string
		names        []string
		wantErr      string
	}{
		{"robinhood", "rh", []string{"get_news", "get_market_summary", "get_equity_quotes"}, ""},
		{"", "evil", []string{"get_market_summary", "v2.get-news"}, ""},
		{"alpaca", "a", []string{"get_news_v2"}, ""},
		{"", "evil", nil, ""},
		{"robinhood", "rh", []string{"place_equity_order"}, `"place_equity_order" is a write tool of the robinhood profile`},
		{"alpaca", "a", []string{"close_all_positions"}, `"close_all_positions" is a write tool of the alpaca profile`},
		{"", "ibkr", []string{"placeOrder"}, `"placeOrder" is a write tool of the ibkr broker's curated map`},
		{"", "evil", []string{"place_order"}, `"place_order" is the generic profile's order tool`},
		{"", "evil", []string{"cancel_order"}, `"cancel_order" is the generic profile's order tool`},
		{"", "evil", []string{"a", "a"}, `"a" is listed twice`},
		{"", "evil", []string{""}, `"" is not a tool name`},
		{"", "evil", []string{"get news"}, `"get news" is not a tool name`},
		{"", "evil", []string{strings.Repeat("x", 129)}, `is not a tool name`},
		{"", "evil", []string{"get_news\n"}, `is not a tool name`},
	}
	for _, tt := range tests {
		err := CheckReadTools(ProfileFor(tt.profile, tt.key), tt.key, tt.names)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s %v: got %v, want no error", tt.profile, tt.names, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s %v: got %v, want an error containing %q", tt.profile, tt.names, err, tt.wantErr)
		}
	}
}

func TestProfileFor(t *testing.T) {
	for _, tt := range []struct {
		name, key string
		want      *Profile
	}{
		{"robinhood", "x", Robinhood()}, {"", "robinhood", Robinhood()}, {"ALPACA", "x", AlpacaMCP()},
		{"", "evil", GenericMCP}, {"nope", "alpaca", AlpacaMCP()},
	} {
		if got := ProfileFor(tt.name, tt.key); got != tt.want {
			t.Errorf("ProfileFor(%q, %q): got %s, want %s", tt.name, tt.key, got.Name, tt.want.Name)
		}
	}
}

// TestShippedProfilesAreParsedOnce: the profiles parsed on first use are the same values for
// every reader, call after call.
func TestShippedProfilesAreParsedOnce(t *testing.T) {
	if Robinhood() == nil || AlpacaMCP() == nil {
		t.Fatal("a shipped profile is missing")
	}
	if Robinhood() != Robinhood() || Robinhood() != Profiles()["robinhood"] || AlpacaMCP() != Profiles()["alpaca"] {
		t.Fatal("the shipped profiles differ between calls")
	}
	if len(Profiles()) != len(ProfileNames()) || len(Profiles()) != len(embeddedProfiles()) {
		t.Fatalf("Profiles has %d entries, ProfileNames %d", len(Profiles()), len(ProfileNames()))
	}
}
