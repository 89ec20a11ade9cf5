package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/engine"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

func calls(be *fakeBackend) string { return strings.Join(be.Calls(), "\n") }

// TestHaltAlwaysWorks: H and ctrl+k halt from the main screen, over every modal, and in the
// too-small mode; in a text field H is typed but ctrl+k still halts.
func TestHaltAlwaysWorks(t *testing.T) {
	tests := []struct {
		name  string
		w, h  int
		setup []string
		key   string
		want  bool
	}{
		{"main", 120, 40, nil, "H", true},
		{"ctrl+k", 120, 40, nil, "ctrl+k", true},
		{"help open", 120, 40, []string{"?"}, "H", true},
		{"flatten preview open", 120, 40, []string{"X"}, "H", true},
		{"quit question open", 120, 40, []string{"q"}, "H", true},
		{"approve card open", 120, 40, []string{"4", "a"}, "H", true},
		{"too small", 70, 20, nil, "H", true},
		{"filter typing: H is a letter", 120, 40, []string{"/"}, "H", false},
		{"filter typing: ctrl+k halts", 120, 40, []string{"/"}, "ctrl+k", true},
		{"form typing: ctrl+k halts", 120, 40, []string{"M", "n"}, "ctrl+k", true},
		{"form typing: H is a letter", 120, 40, []string{"M", "n"}, "H", false},
		{"palette typing: H is a letter", 120, 40, []string{":"}, "H", false},
		{"form discard question: H halts", 120, 40, []string{"M", "n", "9", "esc"}, "H", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, be, _ := newTestModel(t, tt.w, tt.h)
			press(m, tt.setup...)
			run(m, press(m, tt.key))
			halted := strings.Contains(calls(be), "halt key")
			if halted != tt.want {
				t.Fatalf("halted = %v, want %v (calls %v)", halted, tt.want, be.Calls())
			}
			if tt.want && !strings.Contains(screen(m), "HALTED") {
				t.Errorf("the screen does not say HALTED:\n%s", screen(m))
			}
		})
	}
}

// TestEnterAndEscNeverConfirm: in every question enter does nothing and esc backs out, and
// neither runs the action.
func TestEnterAndEscNeverConfirm(t *testing.T) {
	for _, open := range [][]string{{"X"}, {"U"}, {"q"}, {"4", "a"}, {"2", "c"}, {"2", "C"}, {"3", "x"}} {
		for _, k := range []string{"enter", "esc"} {
			m, be, _ := newTestModel(t, 120, 40)
			press(m, open...)
			if m.modal == nil {
				t.Fatalf("%v opened nothing", open)
			}
			run(m, press(m, k))
			if len(be.Calls()) != 0 || m.quit != readmodel.QuitNotYet {
				t.Errorf("%v then %s ran %v (quit %v)", open, k, be.Calls(), m.quit)
			}
			if k == "esc" && m.modal != nil {
				t.Errorf("%v then esc left the modal open", open)
			}
		}
	}
	m, _, _ := newTestModel(t, 120, 40)
	if cmd := press(m, "esc"); cmd != nil || m.quit != readmodel.QuitNotYet {
		t.Error("esc on the main screen did something")
	}
}

// TestConfirmedActions: y runs exactly the action shown.
func TestConfirmedActions(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{[]string{"2", "c", "y"}, "cancel P000012"},
		{[]string{"2", "j", "c", "y"}, "cancel P000013"},
		{[]string{"2", "C", "y"}, "cancel P000012\ncancel P000013\ncancel P000014"},
		{[]string{"3", "x", "y"}, "close AAPL"},
		{[]string{"4", "a", "y"}, "approve ap_0001"},
		{[]string{"4", "d", "enter", "y"}, "deny ap_0001"},
		{[]string{"4", "j", "d", "enter", "y"}, "deny ap_0002"},
		{[]string{"U", "y"}, "resume operator resumed from the cockpit"},
		{[]string{"U", "r", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "enter", "y"}, "resume operator resumed from the"},
	}
	for _, tt := range tests {
		m, be, _ := newTestModel(t, 120, 40)
		for _, k := range tt.keys {
			run(m, press(m, k))
		}
		if got := calls(be); got != tt.want {
			t.Errorf("%v: calls %q, want %q", tt.keys, got, tt.want)
		}
	}
	m, be, _ := newTestModel(t, 120, 40)
	for _, k := range []string{"4", "D"} {
		run(m, press(m, k))
	}
	if got := calls(be); !strings.Contains(got, "deny ap_0001") || !strings.Contains(got, "deny ap_0002") {
		t.Errorf("D denied %q", got)
	}
}

// TestApprovalDeadline: at the deadline the card says TIMED OUT and a cannot approve.
func TestApprovalDeadline(t *testing.T) {
	m, be, clock := newTestModel(t, 120, 40)
	press(m, "4", "a") // the card is open
	clock.Advance(5 * time.Minute)
	m.Update(TickMsg{})
	if !strings.Contains(screen(m), "TIMED OUT") {
		t.Errorf("the open card does not say TIMED OUT:\n%s", screen(m))
	}
	run(m, press(m, "y"))
	press(m, "esc", "a")
	if strings.Contains(calls(be), "approve") {
		t.Errorf("approved after the deadline: %v", be.Calls())
	}
	if !strings.Contains(screen(m), "ap_0001      BUY $6000 AAPL  TIMED OUT") {
		t.Errorf("the queue does not show the timeout:\n%s", screen(m))
	}
}

// TestFlattenNeverFlatEarly: while the broker has not been re-read the result is "—"; then
// the verified summary shows.
func TestFlattenNeverFlatEarly(t *testing.T) {
	for _, verified := range []bool{true, false} {
		m, be, _ := newTestModel(t, 120, 40)
		release := make(chan struct{})
		be.flatten = func(progress func(gate.FlattenProgress)) gate.FlattenReport {
			progress(gate.FlattenProgress{Phase: gate.PhaseCancel, Item: "P000012", OK: true, Done: 1, Total: 3})
			progress(gate.FlattenProgress{Phase: gate.PhaseClose, Item: "AAPL", OK: false, Err: "venue closed", Done: 1, Total: 2})
			<-release
			if !verified {
				return gate.FlattenReport{VerifyErr: "positions unreadable"}
			}
			return gate.FlattenReport{Verified: true, VerifiedAt: livetest.Epoch}
		}
		press(m, "X")
		cmd := press(m, "y")
		for i := 0; i < 2; i++ { // two progress steps
			msg := cmd()
			_, cmd = m.Update(msg)
			if out := screen(m); strings.Contains(out, "FLAT (") || !strings.Contains(out, "Result: — (waiting for the broker)") {
				t.Fatalf("before the re-read:\n%s", out)
			}
		}
		if !strings.Contains(screen(m), "venue closed") {
			t.Errorf("the failed close is not shown:\n%s", screen(m))
		}
		close(release)
		m.Update(cmd())
		out := screen(m)
		want := "Result: FLAT (verified 15:00:00 UTC)"
		if !verified {
			want = "Result: NOT FLAT: could not verify with the broker: positions unreadable"
		}
		if !strings.Contains(out, want) {
			t.Errorf("verified=%v: lacks %q:\n%s", verified, want, out)
		}
	}
}

// TestQuit: q asks; h halts and quits; y leaves orders; a second ctrl+c within 2 s halts.
func TestQuit(t *testing.T) {
	tests := []struct {
		keys []string
		want readmodel.QuitChoice
	}{
		{[]string{"q", "h"}, readmodel.QuitHalt},
		{[]string{"q", "y"}, readmodel.QuitLeave},
		{[]string{"q", "n"}, readmodel.QuitNotYet},
		{[]string{"ctrl+c", "ctrl+c"}, readmodel.QuitHalt},
	}
	for _, tt := range tests {
		m, _, _ := newTestModel(t, 120, 40)
		var cmd tea.Cmd
		for _, k := range tt.keys {
			cmd = press(m, k)
		}
		if m.quit != tt.want {
			t.Errorf("%v: choice %v, want %v", tt.keys, m.quit, tt.want)
		}
		if quits := cmd != nil && isQuit(cmd()); quits != (tt.want != readmodel.QuitNotYet) {
			t.Errorf("%v: quit command %v", tt.keys, quits)
		}
	}
	m, _, clock := newTestModel(t, 120, 40)
	press(m, "ctrl+c")
	clock.Advance(3 * time.Second)
	press(m, "ctrl+c")
	if m.quit != readmodel.QuitNotYet {
		t.Error("two ctrl+c 3 s apart quit")
	}
}

// TestQuitCountIsLive: the agent keeps trading while the quit question is open, so the
// number of resting orders it names follows the snapshots.
func TestQuitCountIsLive(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, "q")
	if out := screen(m); !strings.Contains(out, "3 resting orders stay") {
		t.Fatalf("quit question before:\n%s", out)
	}
	s := be.snap
	s.Orders = s.Orders[:1]
	m.Update(SnapshotMsg{Snapshot: s})
	if out := screen(m); !strings.Contains(out, "1 resting order stays") {
		t.Errorf("quit question after two orders went:\n%s", out)
	}
}

func isQuit(msg tea.Msg) bool {
	_, ok := msg.(tea.QuitMsg)
	return ok
}

// TestSelectionFollowsID: the selected order stays selected when rows above it go away.
func TestSelectionFollowsID(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, "2", "j")
	if m.panes.orders.sel != "P000013" {
		t.Fatalf("selected %q", m.panes.orders.sel)
	}
	s := be.snap
	s.Orders = s.Orders[1:] // P000012 filled
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	run(m, press(m, "c", "y"))
	if got := calls(be); got != "cancel P000013" {
		t.Errorf("cancelled %q", got)
	}
}

// TestFreezeAndPrivacy: f keeps the tables still while data moves on; P hides amounts.
func TestFreezeAndPrivacy(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, "f")
	s := be.snap
	s.Orders = nil
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	if out := screen(m); !strings.Contains(out, "P000012") || !strings.Contains(out, "FROZEN") {
		t.Errorf("frozen table changed:\n%s", out)
	}
	press(m, "f")
	if strings.Contains(screen(m), "P000012") {
		t.Error("unfrozen table still shows the old order")
	}
	press(m, "P")
	if out := screen(m); strings.Contains(out, "3,828.00") || !strings.Contains(out, "•••") {
		t.Errorf("privacy shows amounts:\n%s", out)
	}
}

// TestCommandsAndFilter covers the palette and the pane filter.
func TestCommandsAndFilter(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	typeText := func(s string) {
		for _, r := range s {
			k := string(r)
			if k == " " {
				k = "space"
				m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
				continue
			}
			press(m, k)
		}
	}
	press(m, ":")
	typeText("theme light")
	run(m, press(m, "enter"))
	if m.themeName != "light" {
		t.Errorf("theme %q", m.themeName)
	}
	press(m, ":")
	typeText("halt market looks wrong")
	run(m, press(m, "enter"))
	if got := calls(be); got != "halt market looks wrong" {
		t.Errorf("calls %q", got)
	}
	press(m, ":")
	typeText("bogus")
	run(m, press(m, "enter"))
	if !strings.Contains(screen(m), `unknown command "bogus"`) {
		t.Errorf("no complaint:\n%s", screen(m))
	}
	press(m, "2", "/")
	typeText("msft")
	press(m, "enter")
	out := screen(m)
	if !strings.Contains(out, "P000013") || strings.Contains(out, "P000012") || !strings.Contains(out, "/msft") {
		t.Errorf("filter:\n%s", out)
	}
	press(m, "esc")
	if !strings.Contains(screen(m), "P000012") {
		t.Error("esc did not clear the filter")
	}
}

// TestFilterMatchesTheFullRow: a narrow pane draws the compact table, but the filter matches
// every field of the row, the origin column included; keys act only on a listed row.
func TestFilterMatchesTheFullRow(t *testing.T) {
	m, be, _ := newTestModel(t, 80, 24)
	press(m, "2", "/")
	for _, r := range "alice" {
		press(m, string(r))
	}
	press(m, "enter")
	out := screen(m)
	if !strings.Contains(out, "P000014") || strings.Contains(out, "P000012") || strings.Contains(out, "P000013") {
		t.Errorf("filter by origin in the compact table:\n%s", out)
	}
	run(m, press(m, "c", "y"))
	if got := calls(be); got != "cancel P000014" {
		t.Errorf("cancelled %q, want the one filtered order", got)
	}
	// A filter that leaves no row leaves nothing for c to act on.
	press(m, "esc", "/")
	for _, r := range "zzz" {
		press(m, string(r))
	}
	press(m, "enter")
	run(m, press(m, "c", "y"))
	if got := calls(be); got != "cancel P000014" {
		t.Errorf("calls %q after c on an empty filtered list, want no new cancel", got)
	}
}

// TestStaleGenerationDropped: events from an earlier engine run are ignored.
func TestStaleGenerationDropped(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	m.data.gen = 3
	m.Update(EngineMsg(engine.Event{Gen: 2, Kind: engine.EvError, Message: "old run"}))
	m.Update(EngineMsg(engine.Event{Gen: 3, Kind: engine.EvError, Message: "this run"}))
	m.Update(TickMsg{})
	out := screen(m)
	if strings.Contains(out, "old run") || !strings.Contains(out, "this run") {
		t.Errorf("generations:\n%s", out)
	}
}

// TestHaltEventShowsAtOnce: the watcher's halt event turns the bar red before the next
// snapshot.
func TestHaltEventShowsAtOnce(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	m.Update(EngineMsg(engine.Event{Gen: 1, Kind: engine.EvHalt, Halt: &halt.State{Broker: "paper", Halted: true, Cause: "fsnotify"}}))
	m.Update(TickMsg{})
	if out := screen(m); !strings.Contains(out, "■ HALTED") {
		t.Errorf("not halted on screen:\n%s", out)
	}
}

func TestRebind(t *testing.T) {
	k := DefaultKeyMap()
	if err := k.Rebind(map[string]string{"halt": "Z", "approve": "A"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(k.Halt.Keys(), ","); got != "Z,ctrl+k" {
		t.Errorf("halt keys %s", got)
	}
	for _, bad := range []map[string]string{{"approve": "enter"}, {"halt": "esc"}, {"flatten": "enter"}, {"nonsense": "x"}, {"halt": " "}} {
		k := DefaultKeyMap()
		if err := k.Rebind(bad); err == nil {
			t.Errorf("Rebind(%v) accepted", bad)
		}
	}
	if _, err := New(Options{Keys: map[string]string{"approve": "enter"}}); err == nil {
		t.Error("New accepted approve on enter")
	}
}

// TestMandateForm: the form validates as you type, names the bad field, needs the typed
// broker name, and commits the document it shows.
func TestMandateForm(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, "M", "n", "down") // max order
	for i := 0; i < 4; i++ {
		press(m, "backspace")
	}
	press(m, "a", "b", "c")
	if out := screen(m); !strings.Contains(out, `hard_caps.max_order_notional_usd = "abc"`) {
		t.Fatalf("no field-named error:\n%s", out)
	}
	press(m, "ctrl+s")
	if strings.Contains(screen(m), "Type the broker name") {
		t.Fatal("an invalid draft reached the consent step")
	}
	press(m, "backspace", "backspace", "backspace", "2", "5", "0", "0", "ctrl+s")
	press(m, "p", "a", "p", "e", "enter")
	if len(be.Calls()) != 0 || !strings.Contains(screen(m), `typed "pape", not "paper"`) {
		t.Fatalf("wrong name: calls %v\n%s", be.Calls(), screen(m))
	}
	press(m, "p", "a", "p", "e", "r")
	run(m, press(m, "enter"))
	got := calls(be)
	if !strings.HasPrefix(got, "commit 30 paper {") || !strings.Contains(got, `"max_order_notional_usd":2500`) {
		t.Errorf("commit %q", got)
	}
	if !strings.Contains(screen(m), "Committed mandate_new") {
		t.Errorf("no result:\n%s", screen(m))
	}
}
