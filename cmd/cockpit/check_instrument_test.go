package main

import (
	"strings"
	"testing"
)

func TestCheckValuesInstruments(t *testing.T) {
	home := t.TempDir()
	doc := strings.Replace(draft, `"allowed_instruments": ["equity"]`, `"allowed_instruments": ["equity", "option", "crypto"]`, 1)
	doc = strings.Replace(doc, `"asset_classes": ["us_equity"]`, `"asset_classes": ["us_equity", "crypto"]`, 1)
	run(t, home, "paper\n", "mandate", "commit", "--broker", "paper", "--from", writeDraft(t, doc))
	cases := []struct {
		args []string
		want string
		code int
	}{
		// 3 contracts × 100 × 1.25 = 375 fits the 750 cap; 7 contracts (875) do not.
		{[]string{"--symbol", "AAPL250117C00150000", "--instrument", "option", "--qty", "3", "--price", "1.25"}, `"verdict":"ALLOW"`, exitOK},
		{[]string{"--symbol", "AAPL250117C00150000", "--instrument", "option", "--qty", "7", "--price", "1.25"}, `"attempted_value":875`, exitNotAllow},
		{[]string{"--symbol", "AAPL25011C00150000", "--instrument", "option", "--qty", "1", "--price", "1.25"}, `is not an OCC option symbol`, exitNotAllow},
		{[]string{"--symbol", "BTC/USD", "--instrument", "crypto", "--qty", "0.0015", "--price", "64000.50"}, `"verdict":"ALLOW"`, exitOK},
	}
	for _, c := range cases {
		out, _, code := run(t, home, "", append([]string{"check", "--side", "buy"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("check %v: %d %q, want %d and %s", c.args, code, out, c.code, c.want)
		}
	}
}
