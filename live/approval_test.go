package live_test

import (
	"testing"

	"cockpit/live"
	"cockpit/live/money"
)

// TestApprovalCovers: an approval covers a quantitative breach of a limit it was shown, no
// further than shown (a dollar figure within the drift, the day's count not at all), and
// nothing else.
func TestApprovalCovers(t *testing.T) {
	q := func(limit, v string) live.Breach {
		return live.Breach{Kind: live.KindQuantitative, Limit: limit, Attempted: money.MustParse(v)}
	}
	ap := &live.Approval{Grant: "ap_1", DriftBps: 100, Waives: []live.Breach{
		q(live.LimitOrderNotional, "6000"), q(live.LimitTradesPerDay, "3"),
	}}
	universe := q(live.LimitOrderNotional, "1")
	universe.Kind = live.KindUniverse
	for _, c := range []struct {
		name string
		a    *live.Approval
		b    live.Breach
		want bool
	}{
		{"same value", ap, q(live.LimitOrderNotional, "6000"), true},
		{"less", ap, q(live.LimitOrderNotional, "5000"), true},
		{"within drift", ap, q(live.LimitOrderNotional, "6060"), true},
		{"beyond drift", ap, q(live.LimitOrderNotional, "6060.01"), false},
		{"count same", ap, q(live.LimitTradesPerDay, "3"), true},
		{"count grew", ap, q(live.LimitTradesPerDay, "4"), false},
		{"limit not shown", ap, q(live.LimitTotalExposure, "1"), false},
		{"not quantitative", ap, universe, false},
		{"no drift", &live.Approval{Waives: ap.Waives}, q(live.LimitOrderNotional, "6000.01"), false},
		{"nil approval", nil, q(live.LimitOrderNotional, "1"), false},
	} {
		if got := c.a.Covers(&c.b); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
