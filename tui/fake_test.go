package tui

import (
	"cockpit/readmodel"

	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
)

// fakeBackend records actions and serves a fixed snapshot.
type fakeBackend struct {
	mu      sync.Mutex
	snap    readmodel.Snapshot
	calls   []string
	flatten func(progress func(gate.FlattenProgress)) gate.FlattenReport
	audit   []readmodel.AuditRow
	denyWhy []string // the reasons given to Deny
}

func (f *fakeBackend) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) Snapshot(context.Context) readmodel.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap
}
func (f *fakeBackend) Halt(_ context.Context, r string) error {
	f.record("halt " + r)
	f.mu.Lock()
	f.snap.State = live.Halted
	f.mu.Unlock()
	return nil
}
func (f *fakeBackend) HaltBroker(_ context.Context, r string) error {
	f.record("halt broker " + r)
	f.mu.Lock()
	f.snap.State = live.Halted
	f.mu.Unlock()
	return nil
}
func (f *fakeBackend) ReduceOnly(_ context.Context, r string) error {
	f.record("reduce " + r)
	return nil
}
func (f *fakeBackend) Resume(_ context.Context, r string) error {
	f.record("resume " + r)
	f.mu.Lock()
	f.snap.State = live.Active
	f.mu.Unlock()
	return nil
}
func (f *fakeBackend) Flatten(_ context.Context, p func(gate.FlattenProgress)) gate.FlattenReport {
	f.record("flatten")
	if f.flatten != nil {
		return f.flatten(p)
	}
	return gate.FlattenReport{Verified: true, VerifiedAt: livetest.Epoch}
}
func (f *fakeBackend) Approve(_ context.Context, id, r string) error {
	f.record("approve " + id)
	return nil
}
func (f *fakeBackend) Deny(_ context.Context, id, r string) error {
	f.record("deny " + id)
	f.mu.Lock()
	f.denyWhy = append(f.denyWhy, r)
	f.mu.Unlock()
	return nil
}
func (f *fakeBackend) Cancel(_ context.Context, id string) error {
	f.record("cancel " + id)
	return nil
}
func (f *fakeBackend) ClosePosition(_ context.Context, s string) error {
	f.record("close " + s)
	return nil
}
func (f *fakeBackend) Block(_ context.Context, s, r string) error {
	f.record("block " + s + " " + r)
	f.mu.Lock()
	f.snap.Blocked = append(f.snap.Blocked, s)
	f.mu.Unlock()
	return nil
}
func (f *fakeBackend) Unblock(_ context.Context, s, r string) error {
	f.record("unblock " + s + " " + r)
	return nil
}
func (f *fakeBackend) Audit(_ context.Context, fl readmodel.AuditFilter) ([]readmodel.AuditRow, error) {
	var out []readmodel.AuditRow
	for _, r := range f.audit {
		if fl.Text == "" || strings.Contains(r.Type+r.Summary, fl.Text) {
			out = append(out, r)
		}
	}
	return out, nil
}
func (f *fakeBackend) ExportAudit(context.Context) (string, error) {
	f.record("export")
	return "/tmp/audit.jsonl", nil
}
func (f *fakeBackend) CommitMandate(_ context.Context, doc []byte, days int, typed string) (*mandatefile.CommitResult, error) {
	f.record(fmt.Sprintf("commit %d %s %s", days, typed, doc))
	return &mandatefile.CommitResult{MandateID: "mandate_new", ExpiresAt: "2026-07-01T15:00:00Z"}, nil
}

func amtp(s string) *money.Amount { a := money.MustParse(s); return &a }

// sampleSnapshot is a paper session mid-day: two positions, three resting orders, two
// reviews, a mandate at 40 of its orders.
func sampleSnapshot(t testing.TB) readmodel.Snapshot {
	t.Helper()
	root := livetest.Root(t)
	md := livetest.Commit(t, root, live.PaperBroker, "", livetest.Epoch.Add(-24*time.Hour))
	md.MandateID, md.Consent.ConsentTokenSHA256 = "mandate_0001", "c0ffee"
	now := livetest.Epoch
	q := func(sym, bid, ask, last string) live.Quote {
		return live.Quote{Symbol: sym, Bid: money.MustParse(bid), Ask: money.MustParse(ask), Last: money.MustParse(last), Time: now.Add(-400 * time.Millisecond)}
	}
	order := func(id, sym, side, qn, px string, ageS int) live.Order {
		return live.Order{ID: id, ClientOrderID: "ck" + id, Symbol: sym, Side: side, Type: live.Limit, Quantity: amtp(qn), LimitPrice: amtp(px),
			Status: live.StatusAccepted, CreatedAt: now.Add(-time.Duration(ageS) * time.Second)}
	}
	review := func(id, body, limit, lv, att string, left time.Duration) live.ReviewItem {
		v, _ := jsonv.Parse([]byte(body), jsonv.Options{})
		return live.ReviewItem{ID: id, Broker: "paper", Order: v.(*jsonv.Object), Digest: "9f2c…", Why: "breach", Limit: limit,
			LimitValue: lv, Attempted: att, AgentReason: "momentum: fast over slow", Created: now.Add(-time.Minute), Deadline: now.Add(left), State: live.ReviewPending}
	}
	return readmodel.Snapshot{Taken: now, Broker: "paper", State: live.Active, HaltFile: root.SentinelPath(live.HaltSentinel, "paper"), HaltFileOK: true, Mandate: md, Committed: now.Add(-24 * time.Hour), Expires: now.Add(29 * 24 * time.Hour), OrdersToday: 14, Reviews: []live.ReviewItem{
		review("ap_0001", `{"side":"buy","notional":"6000","symbol":"AAPL"}`, "max_order_notional_usd", "5000", "6000", 4*time.Minute+31*time.Second),
		review("ap_0002", `{"side":"sell","quantity":"50","symbol":"TSLA","limit_price":"245"}`, "max_trades_per_day", "20", "21", 9*time.Minute+12*time.Second),
	}, Audit: []readmodel.AuditRow{
		{Seq: 212, Time: now.Add(-2 * time.Second), Actor: "agent:strategy", Type: "breach", Outcome: "blocked", Reason: "max_order_notional_usd", Summary: "buy $6000 AAPL (equity)"},
		{Seq: 211, Time: now.Add(-20 * time.Second), Actor: "agent:strategy", Type: "order_placed", Outcome: "accepted", Summary: "buy 10 units NVDA (equity)"},
		{Seq: 210, Time: now.Add(-31 * time.Second), Actor: "operator:alice", Type: "halt_cleared", Outcome: "accepted", Summary: "resume paper"},
	}, AuditTotal: 212, Owned: readmodel.Owned{Agent: "strategy", LargestOrder: money.MustParse("3400"), LastOrder: money.MustParse("1205"), Latency: 3 * time.Millisecond, Positions: []live.Position{
		{Symbol: "AAPL", Qty: money.MustParse("20"), AvgPrice: money.MustParse("190.10"), MarketValue: money.MustParse("3828.00"), UnrealizedPnL: money.MustParse("26.00")},
		{Symbol: "TSLA", Qty: money.MustParse("-5"), AvgPrice: money.MustParse("245.00"), MarketValue: money.MustParse("-1221.25"), UnrealizedPnL: money.MustParse("3.75")},
	}, Orders: []live.Order{order("P000012", "NVDA", "buy", "10", "120.50", 12), order("P000013", "MSFT", "buy", "4", "416.00", 190),
		order("P000014", "SPY", "sell", "2", "565.00", 41)}, Origins: map[string]string{"ckP000012": "agent:strategy", "ckP000013": "agent:strategy", "ckP000014": "operator:alice"}, DayEquity: money.MustParse("100000"), // the day so far: +29.75 and all of it open
		Account: live.Account{Cash: money.MustParse("95000"), Equity: money.MustParse("100029.75"), BuyingPower: money.MustParse("95000")}, Quotes: map[string]live.Quote{"AAPL": q("AAPL", "191.35", "191.45", "191.40"), "TSLA": q("TSLA", "244.20", "244.30", "244.25"),
			"NVDA": q("NVDA", "121.75", "121.85", "121.80"), "MSFT": q("MSFT", "418.20", "418.30", "418.25"), "SPY": q("SPY", "562.05", "562.15", "562.10")}}}
}

// newTestModel is a screen at w×h on the fake backend, the fixed clock and no colour.
func newTestModel(t testing.TB, w, h int) (*Model, *fakeBackend, *livetest.Clock) {
	t.Helper()
	clock := livetest.NewClock(livetest.Epoch)
	be := &fakeBackend{snap: sampleSnapshot(t)}
	m, err := New(Options{Backend: be, Now: clock.Now, Theme: "no-color"})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(SnapshotMsg{Snapshot: be.snap, OneOff: true})
	return m, be, clock
}

// screen is the plain text of the frame after a render tick.
func screen(m *Model) string {
	m.Update(TickMsg{})
	return ansi.Strip(m.View().Content)
}

// press sends keys by name ("H", "ctrl+k", "esc", "enter", "tab").
func press(m *Model, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		_, last = m.Update(keyMsg(k))
	}
	return last
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+k":
		return tea.KeyPressMsg{Code: 'k', Mod: tea.ModCtrl}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// run executes a command and feeds its message (and batches) back into the model.
func run(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			run(m, c)
		}
	case TickMsg:
	default:
		_, next := m.Update(msg)
		if _, isSnap := msg.(SnapshotMsg); !isSnap {
			run(m, next)
		}
	}
}

func stripped(s string) string { return ansi.Strip(s) }
