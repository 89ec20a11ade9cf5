package readmodel_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/readmodel"
	"cockpit/session"
	"cockpit/session/supervise"
)

// TestEveryWindowShowsTheTrailsAlerts (issue 28 §3, §4): a denial, a scanner finding and a halt
// raised before any screen followed the session are in the read model's alerts, and a
// supervising window of the same root shows the very same alerts as the owner's.
func TestEveryWindowShowsTheTrailsAlerts(t *testing.T) {
	s, err := session.Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	turn := s.Engine().NewTurn("strategy")
	if r := turn.Call(ctx, "place_order", map[string]any{"symbol": "GME", "side": "buy", "notional": "100"}); r.OK() {
		t.Fatalf("GME order: %+v, want a denial (the default mandate excludes it)", r)
	}
	turn.Call(ctx, "get_news", map[string]any{}) // the bundled feed carries injection attempts
	if err := s.Backend().Halt(ctx, "test: a halt before any screen"); err != nil {
		t.Fatal(err)
	}
	owner := s.Backend().Snapshot(ctx).Alerts
	kinds := map[string]int{}
	for _, a := range owner {
		kinds[a.Kind]++
	}
	for _, k := range []string{"DENIED", "INJECTION", "HALT"} {
		if kinds[k] == 0 {
			t.Errorf("no %s alert in the owner's read model: %+v", k, owner)
		}
	}
	sup, err := supervise.Open(s.Runtime(), s.Key())
	if err != nil {
		t.Fatal(err)
	}
	got := sup.Snapshot(ctx).Alerts
	if len(got) != len(owner) {
		t.Fatalf("the supervisor shows %d alerts, the owner %d", len(got), len(owner))
	}
	for i := range owner {
		if got[i] != owner[i] {
			t.Errorf("alert %d: supervisor %+v, owner %+v", i, got[i], owner[i])
		}
	}
	for _, a := range owner {
		if a.Kind == "INJECTION" && (!a.Untrusted || !strings.Contains(a.Text, ":")) {
			t.Errorf("finding alert %+v, want untrusted text naming the rule", a)
		}
	}
	_ = readmodel.AlertCrit
}
