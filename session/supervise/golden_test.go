package supervise

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/readmodel"
	"cockpit/session"
	"cockpit/store"
	"cockpit/tui"
)

// goldenSupervisor is a supervisor of a paper root whose owner (serve-mcp pid 4242) published
// a live state with two positions and a resting order, then died (no heartbeat for a minute).
func goldenSupervisor(t *testing.T) (*Backend, *livetest.Clock) {
	t.Helper()
	clock := livetest.NewClock(livetest.Epoch)
	rt, err := session.OpenRuntime(session.Env{Now: clock.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard}, livetest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	if _, err := session.EnsurePaperMandate(rt); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	beat := clock.Now().Add(-time.Minute)
	if err := rt.DB.SetOwner(ctx, store.Owner{Broker: "paper", PID: 4242, Host: "desk", Kind: "serve-mcp", Agent: "none",
		SessionID: "sess_golden", StartedAt: beat.Add(-time.Hour), HeartbeatAt: beat}); err != nil {
		t.Fatal(err)
	}
	q, px := money.MustParse("10"), money.MustParse("120.50")
	ls := readmodel.Owned{Agent: "mcp:client@1 (2 sessions)", BookAt: beat,
		Positions: []live.Position{{Symbol: "AAPL", Qty: money.MustParse("20"), AvgPrice: money.MustParse("190.10"), MarketValue: money.MustParse("3828")},
			{Symbol: "TSLA", Qty: money.MustParse("-5"), AvgPrice: money.MustParse("245"), MarketValue: money.MustParse("-1221.25")}},
		Orders: []live.Order{{ID: "P000012", ClientOrderID: "ckP000012", Symbol: "NVDA", Side: "buy", Type: live.Limit, Quantity: &q,
			LimitPrice: &px, Status: live.StatusAccepted, CreatedAt: beat.Add(-12 * time.Second)}},
		Account: live.Account{Cash: money.MustParse("95000"), Equity: money.MustParse("100029.75"), BuyingPower: money.MustParse("95000")},
		Quotes:  map[string]live.Quote{}}
	body, _ := json.Marshal(ls)
	if _, err := rt.DB.PutLiveState(ctx, "paper", body); err != nil {
		t.Fatal(err)
	}
	b, err := Open(rt, "paper")
	if err != nil {
		t.Fatal(err)
	}
	b.Now = clock.Now
	return b, clock
}

// scrub replaces what differs from run to run (temporary paths, random ids) with fixed text.
var scrubs = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`/tmp/\S*`), "<root>"},
	{regexp.MustCompile(`mandate_[0-9a-f]{4,}`), "mandate_<id>"},
	{regexp.MustCompile(`sup_[0-9a-f]{4,}`), "sup_<id>"},
}

func plain(t *testing.T, m *tui.Model, w, h int) []byte {
	t.Helper()
	m.Update(tui.TickMsg{})
	out := ansi.Strip(m.View().Content)
	for i, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > w || i >= h {
			t.Fatalf("line %d (%d cells) does not fit %dx%d:\n%s", i, ansi.StringWidth(l), w, h, out)
		}
	}
	for _, s := range scrubs {
		out = s.re.ReplaceAllString(out, s.with)
	}
	return []byte(out)
}

// TestSupervisingScreenGoldens (issue 28): the supervising screen at 120×40 and 80×24 with its
// owner gone, then halted from here, then after its own verified FLAT: the banner says the
// owner is gone (once), resume would say nobody trades, and after FLAT the panes are empty.
func TestSupervisingScreenGoldens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			b, clock := goldenSupervisor(t)
			m, err := tui.New(tui.Options{Backend: b, Now: clock.Now, Theme: "no-color"})
			if err != nil {
				t.Fatal(err)
			}
			m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			ctx := session.WithOperator(context.Background(), "tui:golden")
			snap := func() { m.Update(tui.SnapshotMsg{Snapshot: b.Snapshot(ctx), OneOff: true}) }
			snap()
			t.Run("owner_gone", func(t *testing.T) { golden.RequireEqual(t, plain(t, m, size.w, size.h)) })
			if err := b.Halt(ctx, "golden: halt from the supervisor"); err != nil && !halt.InForce(err) {
				t.Fatal(err)
			}
			snap()
			t.Run("halted", func(t *testing.T) { golden.RequireEqual(t, plain(t, m, size.w, size.h)) })
			if rep := b.Flatten(ctx, nil); !rep.Flat() {
				t.Fatalf("flatten: %s", rep.Summary())
			}
			snap()
			t.Run("after_flat", func(t *testing.T) {
				out := plain(t, m, size.w, size.h)
				if strings.Contains(string(out), "NVDA") || strings.Contains(string(out), "TSLA") {
					t.Errorf("after the verified FLAT the screen still shows the dead owner's book:\n%s", out)
				}
				golden.RequireEqual(t, out)
			})
		})
	}
}
