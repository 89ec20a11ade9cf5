package vibeattach

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cockpit/readmodel"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/vibe"
	"cockpit/tui"
)

const broker = "robinhood"

// trippedAt is the reference's tripped_at shape (vibe-live H3).
var trippedAt = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$`)

// fixture is a Vibe-Trading root written by cockpit's Vibe-format writers: a committed
// mandate, today's counter at 3, and three chained audit records.
func fixture(t *testing.T) (live.Root, *livetest.Clock) {
	t.Helper()
	clock := livetest.NewClock(livetest.Epoch)
	root := livetest.Root(t)
	livetest.Commit(t, root, broker, "", clock.Now())
	for range 3 {
		if _, err := counter.IncrementDailyCount(root, broker, clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	m := &vibe.Mirror{Root: root}
	for i, sym := range []string{"AAPL", "MSFT", "NVDA"} {
		rec := live.AuditRecord{Time: clock.Now().Add(time.Duration(i) * time.Second), Actor: live.Principal{SessionID: "s1"},
			Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: broker, Tool: "place_equity_order",
			Intent: "buy 1 " + sym}
		if err := m.Record(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	return root, clock
}

func newBackend(root live.Root, clock *livetest.Clock) *Backend {
	return New(Options{Root: root, Broker: broker, Now: clock.Now, By: "cockpit-tui:test"})
}

// TestDetect: a Vibe-Trading root is accepted with its one broker; anything else is refused
// naming what is missing.
func TestDetect(t *testing.T) {
	root, _ := fixture(t)
	if got, key, err := Detect(root.Dir(), ""); err != nil || got != root || key != broker {
		t.Fatalf("Detect(fixture) = %q %q %v, want %q %q", got, key, err, root, broker)
	}
	two := livetest.Root(t)
	for _, b := range []string{"alpaca", "robinhood"} {
		counter.IncrementDailyCount(two, b, livetest.Epoch)
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "live", "runtime"), 0o700)
	for _, tc := range []struct {
		name, dir, broker, want string
	}{
		{"no live dir", t.TempDir(), "", "live is missing"},
		{"the live dir itself", root.LiveDir(), "", "not its live/ directory"},
		{"no broker dir", empty, "", "holds a mandate.json or a trade_counter.json"},
		{"two brokers", two.Dir(), "", "several brokers (alpaca, robinhood): pick one with --broker"},
		{"unknown broker", root.Dir(), "alpaca", "live/alpaca is missing (brokers on this root: robinhood)"},
		{"path-shaped broker", root.Dir(), "../x", "invalid broker key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Detect(tc.dir, tc.broker)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Detect(%s, %q) error %v, want one containing %q", tc.dir, tc.broker, err, tc.want)
			}
		})
	}
	if _, key, err := Detect(two.Dir(), "ALPACA"); err != nil || key != "alpaca" {
		t.Errorf("Detect(two, ALPACA) = %q %v, want alpaca", key, err)
	}
}

// TestSnapshotVerifiedChain: the mandate, today's count, the halt state and the audit tail,
// every row verified; appended records are verified on the next snapshot.
func TestSnapshotVerifiedChain(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	s := be.Snapshot(context.Background())
	if s.Mandate == nil || s.MandateErr != "" {
		t.Fatalf("mandate %v err %q, want the committed mandate", s.Mandate, s.MandateErr)
	}
	if s.OrdersToday != 3 || s.State != live.Active || !s.HaltFileOK {
		t.Errorf("orders %d state %s haltOK %v, want 3 ACTIVE true", s.OrdersToday, s.State, s.HaltFileOK)
	}
	if len(s.Faults) != 0 {
		t.Errorf("faults %q, want none", s.Faults)
	}
	if len(s.Audit) != 3 || s.Audit[0].Seq != 3 || s.Audit[0].Summary != "buy 1 NVDA" || s.Audit[0].Actor != "vibe:s1" {
		t.Fatalf("audit %+v, want 3 rows, newest (seq 3, buy 1 NVDA, vibe:s1) first", s.Audit)
	}
	m := &vibe.Mirror{Root: root}
	m.Record(context.Background(), live.AuditRecord{Time: clock.Now(), Kind: live.KindBreach, Outcome: live.OutcomeBlocked, Broker: broker})
	s = be.Snapshot(context.Background())
	if len(s.Audit) != 4 || s.AuditTotal != 4 {
		t.Fatalf("after an append: %d rows, total %d, want 4 and 4", len(s.Audit), s.AuditTotal)
	}
	for _, r := range s.Audit {
		if r.Unverified {
			t.Errorf("row %d unverified on an intact chain", r.Seq)
		}
	}
}

// TestSnapshotBrokenChain: a record edited in place breaks the chain there: an alert, and
// that row and every later one marked unverified.
func TestSnapshotBrokenChain(t *testing.T) {
	root, clock := fixture(t)
	path := ChainPath(root)
	data, _ := os.ReadFile(path)
	edited := strings.Replace(string(data), `buy 1 MSFT`, `buy 9 MSFT`, 1)
	if edited == string(data) {
		t.Fatal("fixture: nothing edited")
	}
	os.WriteFile(path, []byte(edited), 0o600)
	s := newBackend(root, clock).Snapshot(context.Background())
	if len(s.Faults) != 1 || !strings.Contains(s.Faults[0], "audit chain broken at line 2 (seq 2, record_hash_mismatch)") {
		t.Fatalf("faults %q, want the break at line 2", s.Faults)
	}
	got := map[int64]bool{}
	for _, r := range s.Audit {
		got[r.Seq] = r.Unverified
	}
	if want := map[int64]bool{1: false, 2: true, 3: true}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("unverified by seq %v, want %v", got, want)
	}
	m := screenModel(t, newBackend(root, clock), clock)
	press(m, "6")
	view := frame(m)
	for _, want := range []string{"#3 ✖UNVERIFIED vibe:s1", "#2 ✖UNVERIFIED vibe:s1"} {
		if !strings.Contains(view, want) {
			t.Errorf("screen lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "#1 ✖UNVERIFIED") {
		t.Errorf("record 1 (before the break) shown unverified:\n%s", view)
	}
}

// TestSnapshotFailsClosed: a corrupt mandate is an error, not limits; a sentinel that cannot
// be checked is halted and shown as ERROR; no reconciled state is a broker error, not zero
// exposure.
func TestSnapshotFailsClosed(t *testing.T) {
	root, clock := fixture(t)
	os.WriteFile(root.MandatePath(broker), []byte(`{"hard_caps": `), 0o600)
	s := newBackend(root, clock).Snapshot(context.Background())
	if s.Mandate != nil || s.MandateErr == "" || s.MandateState != live.MandateInvalid {
		t.Errorf("mandate %v err %q state %s, want an invalid mandate and no limits", s.Mandate, s.MandateErr, s.MandateState)
	}
	if s.State != live.Active || !s.HaltFileOK {
		t.Errorf("state %s haltOK %v, want ACTIVE and OK before the sentinel test", s.State, s.HaltFileOK)
	}
	if !strings.Contains(s.BrokerErr, "exposure unknown") {
		t.Errorf("broker error %q, want exposure unknown", s.BrokerErr)
	}
	// live/robinhood is now a file: its HALT cannot be checked (ENOTDIR, not "missing").
	os.RemoveAll(root.BrokerDir(broker))
	os.WriteFile(root.BrokerDir(broker), []byte("x"), 0o600)
	s = newBackend(root, clock).Snapshot(context.Background())
	if s.State != live.Halted || s.HaltFileOK {
		t.Errorf("unreadable sentinel: state %s haltOK %v, want HALTED and not OK (ERROR)", s.State, s.HaltFileOK)
	}
}

// TestActionsWithoutQueue: every action but halt and resume says why it cannot be done.
func TestActionsWithoutQueue(t *testing.T) {
	root, clock := fixture(t)
	be, ctx := newBackend(root, clock), context.Background()
	for name, err := range map[string]error{
		"approve": be.Approve(ctx, "r1", ""), "deny": be.Deny(ctx, "r1", ""), "cancel": be.Cancel(ctx, "o1"),
		"close": be.ClosePosition(ctx, "AAPL"), "block": be.Block(ctx, "AAPL", ""), "unblock": be.Unblock(ctx, "AAPL", ""),
		"reduce-only": be.ReduceOnly(ctx, ""),
	} {
		if !errors.Is(err, ErrNoQueue) {
			t.Errorf("%s: %v, want %v", name, err, ErrNoQueue)
		}
	}
	if _, err := be.CommitMandate(ctx, nil, 1, ""); !errors.Is(err, ErrNoQueue) {
		t.Errorf("commit: %v", err)
	}
}

// TestFlattenWhenAttachedWritesItsHalt (issue 28 §3): X then y on an attached screen shows
// "HALT ✓" only because the HALT file is written; the cancel and close steps say they are not
// available here instead of "✓ none", the status bar says the screen is attached and which
// actions exist, and H's message claims no cancels.
func TestFlattenWhenAttachedWritesItsHalt(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	m := screenModel(t, be, clock)
	if view := frame(m); !strings.Contains(view, "ATTACHED to Vibe-Trading") {
		t.Errorf("the status bar does not say the screen is attached:\n%s", view)
	}
	press(m, "X")
	if view := frame(m); !strings.Contains(view, "Cancel resting orders: not available here") {
		t.Errorf("the preview promises what it cannot do:\n%s", view)
	}
	run(m, press(m, "y"))
	view := frame(m)
	if !halt.IsGloballyHalted(root) {
		t.Fatalf("the flatten wrote no HALT file, yet the screen says:\n%s", view)
	}
	for _, want := range []string{"HALT                                         ✓", "— not run: no broker"} {
		if !strings.Contains(view, want) {
			t.Errorf("flatten view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "✓ none") {
		t.Errorf("flatten view claims cancels and closes that never ran:\n%s", view)
	}
	rep := be.Flatten(context.Background(), nil)
	if !rep.Halted || rep.Flat() || rep.NotRun == "" || len(rep.Cancelled) != 0 {
		t.Errorf("flatten report %+v, want halted, not flat, cancel and close not run", rep)
	}
}

// TestHaltMessageWhenAttached: H on an attached screen says the HALT is written and that nothing
// is cancelled from here (the owner's screen says resting orders are being cancelled).
func TestHaltMessageWhenAttached(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	m := screenModel(t, be, clock)
	run(m, press(m, "H"))
	view := frame(m)
	if strings.Contains(view, "resting orders are being cancelled") || !strings.Contains(view, "its own runner stops placing orders") {
		t.Errorf("H's message on an attached screen:\n%s", view)
	}
}

// TestHaltKeyWritesVibeSentinel: H on the screen writes live/HALT in Vibe-Trading's format
// ({tripped_at, by, reason}, what its gate checks), the next snapshot shows HALTED, and resume
// removes it.
func TestHaltKeyWritesVibeSentinel(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	m := screenModel(t, be, clock)
	run(m, press(m, "H"))
	data, err := os.ReadFile(root.SentinelPath(live.HaltSentinel, ""))
	if err != nil {
		t.Fatalf("H wrote no live/HALT: %v", err)
	}
	doc, err := jsonv.Parse(data, jsonv.Options{})
	o, _ := doc.(*jsonv.Object)
	if err != nil || o == nil || fmt.Sprint(o.Keys()) != "[tripped_at by reason]" || o.Value("by") != "cockpit-tui:test" {
		t.Fatalf("live/HALT = %s, want {tripped_at, by, reason} by cockpit-tui:test", data)
	}
	if at, _ := o.Value("tripped_at").(string); !trippedAt.MatchString(at) {
		t.Errorf("tripped_at %q, want Vibe-Trading's UTC ISO with microseconds and +00:00 (H3)", at)
	}
	if !halt.IsHalted(root, broker) || !halt.IsHalted(root, "alpaca") {
		t.Fatal("the global sentinel does not halt every broker")
	}
	if s := be.Snapshot(context.Background()); s.State != live.Halted || !strings.Contains(s.HaltReason, "cockpit-tui:test") {
		t.Fatalf("snapshot state %s reason %q, want HALTED by cockpit-tui:test", s.State, s.HaltReason)
	}
	if err := be.Resume(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	if halt.IsHalted(root, broker) {
		t.Error("resume left a HALT file")
	}
	lines, _ := os.ReadFile(ChainPath(root))
	if n := strings.Count(string(lines), "\n"); n != 3 {
		t.Errorf("the chain has %d lines after halt and resume, want the fixture's 3 (nothing appended)", n)
	}
}

// TestView80x24: the plain-text screen at 80×24 shows the headroom (per-order cap, trades
// today), the day count, the halt state and the audit tail.
func TestView80x24(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	m := screenModel(t, be, clock)
	run(m, press(m, "H"))
	m.Update(tui.SnapshotMsg{Snapshot: be.Snapshot(context.Background()), OneOff: true})
	view := frame(m)
	for _, want := range []string{"■ HALTED", "orders 3/20", "per-order notional", "? / 5.00k (book not read)", "total exposure     ░░░░░░░░░░    ?% ? UNKN", "trades today", "3 / 20", "30d0h left"} {
		if !strings.Contains(view, want) {
			t.Errorf("headroom screen lacks %q:\n%s", want, view)
		}
	}
	press(m, "6") // the audit pane
	view = frame(m)
	for _, want := range []string{"#3 vibe:s1", "15:00:02 #3 vibe:s1", "order_placed place_equity_order accepted", "#1 vibe:s1"} {
		if !strings.Contains(view, want) {
			t.Errorf("audit screen lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "UNVERIFIED") {
		t.Errorf("an intact chain shows UNVERIFIED rows:\n%s", view)
	}
}

// frame is the plain text of the screen after a render tick; it must fit 80×24.
func frame(m *tui.Model) string {
	m.Update(tui.TickMsg{})
	view := ansi.Strip(m.View().Content)
	lines := strings.Split(strings.TrimRight(view, "\n"), "\n")
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 80 || i >= 24 {
			panic(fmt.Sprintf("line %d is %d cells wide (of %d lines): the frame does not fit 80×24", i, w, len(lines)))
		}
	}
	return view
}

func screenModel(t *testing.T, be *Backend, clock *livetest.Clock) *tui.Model {
	t.Helper()
	m, err := tui.New(tui.Options{Backend: be, Now: clock.Now, Theme: "no-color"})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(tui.SnapshotMsg{Snapshot: be.Snapshot(context.Background()), OneOff: true})
	return m
}

func press(m *tui.Model, k string) tea.Cmd {
	_, cmd := m.Update(tea.KeyPressMsg{Code: []rune(k)[0], Text: k})
	return cmd
}

// run executes a command and feeds its messages back into the model (not snapshots' follow-ups).
func run(m *tui.Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil, tui.TickMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			run(m, c)
		}
	default:
		_, next := m.Update(msg)
		if _, isSnap := msg.(tui.SnapshotMsg); !isSnap {
			run(m, next)
		}
	}
}

// TestPositionsFromReconciledState: the positions come from runtime_state.json as Vibe-Trading's
// reconcile writes it (the conformance vectors' state files): an empty book reads as no
// exposure; rows the cockpit cannot value (quantity without a price) are a broker error, never 0.
func TestPositionsFromReconciledState(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "conformance", "live.json"))
	if err != nil {
		t.Skipf("no conformance vectors: %v", err)
	}
	doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]*jsonv.Object{}
	for _, c := range doc.(*jsonv.Object).Value("reconcile").([]any) {
		c := c.(*jsonv.Object)
		exp := c.Value("expected").(*jsonv.Object)
		if st, ok := exp.Value("state_file_after").(*jsonv.Object); ok {
			states[c.Value("id").(string)] = st
		}
	}
	for _, tc := range []struct{ id, brokerErr string }{{"cold_start", ""}, {"matched", "positions unreadable"}} {
		t.Run(tc.id, func(t *testing.T) {
			root, clock := fixture(t)
			st := jsonv.Clone(states[tc.id]).(*jsonv.Object)
			st.Set("reconciled_at", live.FormatOffsetTimestamp(clock.Now()))
			os.WriteFile(filepath.Join(root.BrokerDir(broker), "runtime_state.json"), jsonv.MustMarshal(st, jsonv.Python), 0o600)
			s := newBackend(root, clock).Snapshot(context.Background())
			if tc.brokerErr == "" && (s.BrokerErr != "" || len(s.Faults) != 0) || !strings.Contains(s.BrokerErr, tc.brokerErr) {
				t.Errorf("broker error %q faults %q, want %q and no faults", s.BrokerErr, s.Faults, tc.brokerErr)
			}
		})
	}
}

// TestQuitHaltWritesSentinel: ctrl+c twice (the quit question's safe answer, "halt, then
// quit") writes the global HALT file; quitting and leaving writes nothing.
func TestQuitHaltWritesSentinel(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	m := screenModel(t, be, clock)
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	m.Update(ctrlC)
	m.Update(ctrlC)
	if got := m.QuitChoice(); got != readmodel.QuitHalt {
		t.Fatalf("quit choice %v, want QuitHalt", got)
	}
	if msg, err := be.OnQuit(context.Background(), readmodel.QuitLeave); err != nil || msg != "" || halt.IsHalted(root, broker) {
		t.Fatalf("quit and leave: %q %v halted %v, want nothing done", msg, err, halt.IsHalted(root, broker))
	}
	msg, err := be.OnQuit(context.Background(), m.QuitChoice())
	if err != nil || !strings.Contains(msg, "HALT "+root.SentinelPath(live.HaltSentinel, "")) {
		t.Fatalf("quit halt: %q %v, want the HALT path", msg, err)
	}
	if !halt.IsHalted(root, broker) {
		t.Error("quit with halt left the root trading")
	}
}
