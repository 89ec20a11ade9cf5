package main

import (
	"strings"
	"testing"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// TestStatusToolLines: status lists the tools the agent calls without the gate apart from the
// gated ones, names the server's untrusted hint, and quotes a name that is not plain text.
func TestStatusToolLines(t *testing.T) {
	b := jsonv.ObjectOf("link", jsonv.ObjectOf("kind", "mcp", "tools", toolsJSON([]readmodel.BrokerTool{
		{Name: "get_equity_quotes", Class: live.ClassRead},
		{Name: "place_equity_order", Class: live.ClassWrite},
		{Name: "get_market_summary", Class: live.ClassUnknown, Hinted: true},
		{Name: "x\x1b[2Jy", Class: live.ClassRead}})))
	got := strings.Join(toolLines(b), "\n")
	want := "Tools:     2 READ, called by the agent without the gate: get_equity_quotes, \"x\\x1b[2Jy\"\n" +
		"           2 through the gate: place_equity_order (write), get_market_summary (unknown, the server says read-only: not trusted)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if lines := toolLines(jsonv.ObjectOf("link", jsonv.ObjectOf("kind", "alpaca"))); lines != nil {
		t.Errorf("a link without a tool list: got %q, want no lines", lines)
	}
}
