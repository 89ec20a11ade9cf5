package mcppaper

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/mcpbroker"
	"cockpit/live/paper"
)

// historian is a broker with a price history (the paper broker).
type historian interface{ Market() *paper.Market }

// barsTool is get_stock_bars over the paper market: {"symbol", "timeframe", "limit"} →
// {"bars": [{"t", "c"}…]}, oldest first.
func barsTool(h historian, now func() time.Time) tool {
	if now == nil {
		now = time.Now
	}
	return tool{name: "get_stock_bars", read: true, props: []string{"symbol", "timeframe", "limit"},
		run: func(_ context.Context, a *jsonv.Object) (any, error) {
			sym := strings.ToUpper(str(a, "symbol"))
			every, err := mcpbroker.ParseTimeframe(str(a, "timeframe"))
			if err != nil {
				return nil, err
			}
			n := 30
			if v, ok := a.Get("limit"); ok {
				l, err := live.DecimalFromJSON(v)
				if err != nil || !l.IsInteger() || l.Int64() < 1 || l.Int64() > 1000 {
					return nil, fmt.Errorf("limit: want 1 to 1000")
				}
				n = int(l.Int64())
			}
			t := now()
			px := h.Market().History(sym, t, n, every)
			if len(px) == 0 {
				return nil, fmt.Errorf("no bars for %q", sym)
			}
			rows := make([]any, len(px))
			for i, p := range px {
				rows[i] = jsonv.ObjectOf("t", live.FormatTimestamp(t.Add(-time.Duration(len(px)-1-i)*every)), "c", num(p))
			}
			return jsonv.ObjectOf("symbol", sym, "bars", rows), nil
		}}
}
